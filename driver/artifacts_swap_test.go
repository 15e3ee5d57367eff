package driver_test

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/driver"
)

// A directory swapped for a symbolic link while the walk is inside it
// (by a process that escaped the agent's group) never makes the walk
// report a file from outside the workspace.
func TestWalkArtifactsDirectorySwappedForSymlink(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	require.NoError(t, writeFile(outside, "f", "outside the workspace"))
	leaked := sha("outside the workspace")
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	// The directory and the link wait in a dot directory, which the walk
	// skips, and take turns at "sw" by atomic renames.
	stage := filepath.Join(root, ".stage")
	require.NoError(t, writeFile(stage, "dir/f", "inside"))
	require.NoError(t, os.Symlink(outside, filepath.Join(stage, "link")))
	go func() {
		defer wg.Done()
		sw := filepath.Join(root, "sw")
		for !stop.Load() {
			for _, name := range []string{"dir", "link"} {
				if os.Rename(filepath.Join(stage, name), sw) == nil {
					_ = os.Rename(sw, filepath.Join(stage, name))
				}
			}
		}
	}()
	defer func() { stop.Store(true); wg.Wait() }()
	for range 3000 {
		got, err := driver.WalkArtifacts(root, 1000)
		require.NoError(t, err)
		for _, a := range got {
			require.NotEqual(t, leaked, a.SHA256, "reported %s from outside the workspace", a.Path)
		}
	}
}
