package record

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCreateJSONSum(t *testing.T) {
	for _, sync := range []bool{false, true} {
		w := Writer{Sync: sync}
		dir := t.TempDir()
		path := filepath.Join(dir, "case.json")
		sum, err := w.CreateJSONSum(path, map[string]string{"id": "a<b"})
		require.NoError(t, err)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "{\n  \"id\": \"a<b\"\n}\n", string(data))
		h := sha256.Sum256(data)
		assert.Equal(t, hex.EncodeToString(h[:]), sum, "the sum is of the bytes written")
		fi, err := os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, FilePerm, fi.Mode().Perm())
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Len(t, entries, 1, "no temporary file")

		_, err = w.CreateJSONSum(filepath.Join(dir, "bad.json"), func() {})
		require.ErrorIs(t, err, ErrUnencodable)
		assert.NoFileExists(t, filepath.Join(dir, "bad.json"))
	}
}

// A name something else took first (a file, or a link planted to make the
// harness write elsewhere) is replaced, never written through.
func TestCreateFileReplacesWhatIsThere(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	require.NoError(t, os.WriteFile(outside, []byte("keep"), 0o600))
	link := filepath.Join(dir, "grading.json")
	require.NoError(t, os.Symlink(outside, link))
	require.NoError(t, Writer{}.CreateFile(link, []byte("new")))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular(), "the link was replaced by a file")
	data, err := os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(data))
	data, err = os.ReadFile(link)
	require.NoError(t, err)
	assert.Equal(t, "new", string(data))

	err = Writer{}.CreateFile(filepath.Join(dir, "missing", "x.json"), []byte("x"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "missing", "x.json"))
}
