//go:build !unix

package labels

import "sync"

// lockMu stands in for flock(2) where there is none: it excludes writers
// within this process only.
var lockMu sync.Mutex

func lock(path string) (unlock func(), err error) {
	f, err := lockFile(path)
	if err != nil {
		return nil, err
	}
	lockMu.Lock()
	return func() { lockMu.Unlock(); f.Close() }, nil
}
