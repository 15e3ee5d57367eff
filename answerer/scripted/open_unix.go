//go:build unix

package scripted

import "syscall"

// openFlags keep opening a named pipe from blocking; the file is then
// refused for not being a regular file.
const openFlags = syscall.O_NONBLOCK
