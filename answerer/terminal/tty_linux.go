package terminal

import (
	"os"
	"syscall"
	"unsafe"
)

// isTerminal asks the kernel for f's terminal attributes, which only a
// terminal has (/dev/null is a character device but no terminal).
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
