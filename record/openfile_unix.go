//go:build unix

package record

import (
	"os"
	"syscall"
)

// openFile is os.OpenFile for the record's regular files, without the
// work os.OpenFile does to try each file with the runtime's poller (a
// regular file never is pollable): four system calls fewer per file, on
// every file of every run.
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
		switch err {
		case nil:
			return os.NewFile(uintptr(fd), path), nil
		case syscall.EINTR:
			continue
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
}
