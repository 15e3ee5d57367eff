//go:build unix

package orchestrator

import "syscall"

const noFollow = syscall.O_NOFOLLOW
