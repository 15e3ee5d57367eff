//go:build unix

package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/luxeval/lux/internal/ctxtest"
)

// raceTree builds <base>/ws/d/f ("inside") and <base>/outside/ holding
// f, a hard link to ws/d/f, and secret.txt.
func raceTree(t *testing.T) (base string, r Root) {
	t.Helper()
	base = t.TempDir()
	ws := filepath.Join(base, "ws")
	for _, d := range []string{filepath.Join(ws, "d", "sub"), filepath.Join(base, "outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "d", "f"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(ws, "d", "f"), filepath.Join(base, "outside", "f")); err != nil {
		t.Skip("no hard links here:", err)
	}
	if err := os.WriteFile(filepath.Join(base, "outside", "secret.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	return base, Root{Dir: ws, Name: "workspace"}
}

// swapForLink replaces the directory dir by a symlink to target.
func swapForLink(t *testing.T, dir, target string) {
	t.Helper()
	if err := os.Rename(dir, dir+".orig"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, dir); err != nil {
		t.Fatal(err)
	}
}

// An intermediate directory swapped for a symlink after inspection must not
// be followed when the file is opened, even when the link leads to the very
// same file (a hard link outside the root).
func TestReadFileDoesNotFollowAnIntermediateLinkSwappedIn(t *testing.T) {
	base, r := raceTree(t)
	testHookBeforeOpen = func() { swapForLink(t, filepath.Join(r.Dir, "d"), filepath.Join(base, "outside")) }
	t.Cleanup(func() { testHookBeforeOpen = nil })
	data, err := r.ReadFile("d/f", 0)
	if err == nil {
		t.Fatalf("ReadFile read %q through a symlink swapped in after inspection", data)
	}
	if !errors.Is(err, ErrChanged) {
		t.Errorf("ReadFile = %v, want ErrChanged", err)
	}
}

// A directory swapped for a symlink while the tree is walked must not lead
// the walk out of the root.
func TestWalkFilesDoesNotLeaveTheRootWhenADirectoryIsSwapped(t *testing.T) {
	base, r := raceTree(t)
	var seen []string
	err := r.WalkFiles(".", func(rel string, info fs.FileInfo) error {
		seen = append(seen, rel)
		if rel == "d/sub" {
			swapForLink(t, filepath.Join(r.Dir, "d", "sub"), filepath.Join(base, "outside"))
		}
		return nil
	})
	for _, rel := range seen {
		if strings.HasPrefix(rel, "d/sub/") {
			t.Errorf("the walk listed %q, outside the root", rel)
		}
	}
	if !errors.Is(err, ErrChanged) {
		t.Errorf("WalkFiles = %v, want ErrChanged", err)
	}
}

// A directory swapped for a named pipe while the tree is walked must not
// block the walk.
func TestWalkFilesDoesNotBlockOnAPipeSwappedIn(t *testing.T) {
	_, r := raceTree(t)
	sub := filepath.Join(r.Dir, "d", "sub")
	done := make(chan error, 1)
	go func() {
		done <- r.WalkFiles(".", func(rel string, info fs.FileInfo) error {
			if rel == "d/sub" {
				if err := os.Remove(sub); err != nil {
					return err
				}
				if err := syscall.Mkfifo(sub, 0o644); err != nil {
					return err
				}
			}
			return nil
		})
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrChanged) {
			t.Errorf("WalkFiles = %v, want ErrChanged", err)
		}
	case <-ctxtest.SafetyNet(t): // a safety net only
		// Unblock the walk: open the pipe's writing end.
		if f, err := os.OpenFile(sub, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("WalkFiles blocked opening a named pipe swapped in for a directory")
	}
}
