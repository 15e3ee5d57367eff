package record

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// SweepLive removes the live directories of owners that are gone, and
// only those: this process's, and one naming no owner, stay.
func TestSweepLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a process's start marker is known on Linux")
	}
	root := t.TempDir()
	mine, err := ReserveLiveDir(root)
	if err != nil {
		t.Fatal(err)
	}
	gone, err := ReserveLiveDir(root)
	if err != nil {
		t.Fatal(err)
	}
	dead := CurrentOwner()
	dead.Start = "another process's start" // this pid, but not this process
	if err := WriteJSON(filepath.Join(gone, LiveOwnerFile), dead); err != nil {
		t.Fatal(err)
	}
	unowned := filepath.Join(root, LiveDir, "run-unowned")
	if err := os.Mkdir(unowned, DirPerm); err != nil {
		t.Fatal(err)
	}
	if n := SweepLive(root); n != 1 {
		t.Errorf("SweepLive removed %d directories, want 1", n)
	}
	for dir, want := range map[string]bool{mine: true, gone: false, unowned: true} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(dir), err == nil, want)
		}
	}
}
