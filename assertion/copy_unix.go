//go:build unix

package assertion

import "syscall"

// copyFlags open a file to copy without following a final symlink and
// without blocking on a FIFO swapped in after the walk saw a file.
const copyFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
