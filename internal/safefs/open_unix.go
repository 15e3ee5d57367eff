//go:build unix

package safefs

import (
	"errors"
	"syscall"
)

// openFlags never follow a final symlink and never block on a FIFO swapped
// in after inspection.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }

// dirFlags open only a directory: a named pipe swapped in for one fails
// (ENOTDIR) instead of blocking.
const dirFlags = syscall.O_DIRECTORY
