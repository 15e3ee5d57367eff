package driver_test

import (
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

// Special files are skipped without blocking: a FIFO (opening one for
// reading would wait for a writer), a socket, symlink loops.
func TestWalkArtifactsSpecialFiles(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, writeFile(root, "keep.txt", "k"))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	l, err := net.Listen("unix", filepath.Join(root, "sock"))
	require.NoError(t, err)
	defer l.Close()
	require.NoError(t, os.Symlink("loop-b", filepath.Join(root, "loop-a")))
	require.NoError(t, os.Symlink("loop-a", filepath.Join(root, "loop-b")))
	require.NoError(t, os.Symlink(".", filepath.Join(root, "self")))
	got, err := driver.WalkArtifacts(root, 0)
	require.NoError(t, err)
	assert.Equal(t, []lux.Artifact{{Path: "keep.txt", Size: 1, SHA256: sha("k")}}, got)
}

// Files and directories that come and go during the walk (a process
// that escaped the agent's group) are skipped, never an error.
func TestWalkArtifactsChangingTree(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, writeFile(root, "stable.txt", "s"))
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			d := filepath.Join(root, "churn", "d")
			_ = os.MkdirAll(filepath.Join(d, "e"), 0o755)
			for j := range 20 {
				_ = os.WriteFile(filepath.Join(d, "e", string(rune('a'+j))), []byte("x"), 0o644)
			}
			_ = os.RemoveAll(filepath.Join(root, "churn"))
		}
	}()
	defer func() { stop.Store(true); wg.Wait() }()
	for range 300 {
		got, err := driver.WalkArtifacts(root, 1000)
		require.NoError(t, err)
		require.Contains(t, got, lux.Artifact{Path: "stable.txt", Size: 1, SHA256: sha("s")})
	}
}
