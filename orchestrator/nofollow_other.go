//go:build !unix

package orchestrator

const noFollow = 0
