package driver_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/driver"
)

// bytesRead is how many bytes this process has read so far (Linux
// /proc/self/io rchar); ok is false where the system does not say.
func bytesRead(t *testing.T) (int64, bool) {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
			return n, true
		}
	}
	return 0, false
}

// A 1 TB sparse file is listed with its size and not hashed: collecting
// it reads next to nothing, whatever the disk.
func TestCollectArtifactsListsATerabyteSparseFileUnhashed(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "small.txt"), []byte("hi"), 0o644))
	f, err := os.Create(filepath.Join(root, "huge.bin"))
	require.NoError(t, err)
	if err := f.Truncate(1 << 40); err != nil {
		f.Close()
		t.Skip("this file system has no sparse files:", err)
	}
	require.NoError(t, f.Close())

	before, measured := bytesRead(t)
	arts, err := driver.CollectArtifacts(context.Background(), root, driver.ArtifactLimits{})
	require.NoError(t, err)
	require.Len(t, arts, 2)
	huge := arts[0]
	assert.Equal(t, "huge.bin", huge.Path)
	assert.Equal(t, int64(1<<40), huge.Size)
	assert.Empty(t, huge.SHA256)
	assert.Equal(t, "over the 268435456-byte per-file hashing cap", huge.NotHashed)
	assert.Equal(t, sha("hi"), arts[1].SHA256)
	if measured {
		after, _ := bytesRead(t)
		// Walking a directory and hashing two bytes; far below any cap.
		assert.Less(t, after-before, int64(1<<20), "bytes read to collect a 1 TB sparse file")
	}
}

// The bytes hashed in one collection are capped as well: past the cap,
// files are listed unhashed.
func TestCollectArtifactsCapsTheBytesHashedInAll(t *testing.T) {
	root := t.TempDir()
	content := bytes.Repeat([]byte("x"), 600<<10)
	for _, name := range []string{"a", "b", "c"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), content, 0o644))
	}
	arts, err := driver.CollectArtifacts(context.Background(), root, driver.ArtifactLimits{MaxFileBytes: 1 << 20, MaxBytes: 1500 << 10})
	require.NoError(t, err)
	require.Len(t, arts, 3)
	assert.Equal(t, sha(string(content)), arts[0].SHA256)
	assert.Equal(t, sha(string(content)), arts[1].SHA256)
	assert.Equal(t, "", arts[2].SHA256)
	assert.Equal(t, int64(600<<10), arts[2].Size)
	assert.Equal(t, "over the 1536000-byte hashing cap of the collection", arts[2].NotHashed)
}

// A collection whose context has ended still names every file, unhashed.
func TestCollectArtifactsHonoursItsContext(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o644))
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(1, 0))
	defer cancel()
	arts, err := driver.CollectArtifacts(ctx, root, driver.ArtifactLimits{})
	require.NoError(t, err)
	require.Len(t, arts, 1)
	assert.Equal(t, int64(1), arts[0].Size)
	assert.Equal(t, "collection ran out of time before hashing it", arts[0].NotHashed)
}
