//go:build !unix

package record

import "os"

// openFile is os.OpenFile (see openfile_unix.go).
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}
