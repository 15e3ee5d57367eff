//go:build unix

package labels

import "syscall"

// lock takes an exclusive flock(2) on the file at path, waiting for it;
// the returned function releases it. flock locks belong to the open file,
// so two goroutines of one process exclude each other as two processes do.
func lock(path string) (unlock func(), err error) {
	f, err := lockFile(path)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
