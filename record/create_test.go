package record

import (
	"bytes"
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

// WriteJSONSealed writes what WriteJSON would, sealed; a value that does
// not encode leaves the directory as it was.
func TestWriteJSONSealed(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, SuitesDir, "2020-01-01T00-00-00-000Z")
	require.NoError(t, os.MkdirAll(dir, DirPerm))
	key, err := OpenSealKey(root)
	require.NoError(t, err)
	v := map[string]any{"html": "<b>", "n": []int{1, 2}}
	require.NoError(t, Writer{Sync: true}.WriteJSONSealed(dir, "suite", key, SuiteSummaryFile, v))
	got, err := os.ReadFile(filepath.Join(dir, SuiteSummaryFile))
	require.NoError(t, err)
	require.NoError(t, WriteJSON(filepath.Join(t.TempDir(), "x.json"), v))
	var want bytes.Buffer
	require.NoError(t, encode(&want, v, "  "))
	assert.Equal(t, want.String(), string(got))
	state, err := VerifySeal(dir)
	require.NoError(t, err)
	assert.Equal(t, SealVerified, state)
	seal, err := os.ReadFile(filepath.Join(dir, SealFile))
	require.NoError(t, err)

	err = Writer{}.WriteJSONSealed(dir, "suite", key, SuiteSummaryFile, func() {})
	require.ErrorIs(t, err, ErrUnencodable)
	after, err := os.ReadFile(filepath.Join(dir, SuiteSummaryFile))
	require.NoError(t, err)
	assert.Equal(t, string(got), string(after))
	sealAfter, err := os.ReadFile(filepath.Join(dir, SealFile))
	require.NoError(t, err)
	assert.Equal(t, string(seal), string(sealAfter), "the seal is untouched")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "no temporary file left")
}

func TestReadSized(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		size  int
		limit int64
		want  int
	}{
		{"empty", 0, 10, 0},
		{"under the limit", 7, 10, 7},
		{"at the limit", 10, 10, 10},
		{"over the limit: the limit", 25, 10, 10},
		{"larger than a first guess", 5000, 1 << 20, 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			data := bytes.Repeat([]byte("x"), tc.size)
			require.NoError(t, os.WriteFile(path, data, 0o600))
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			got, err := readSized(f, tc.limit)
			require.NoError(t, err)
			assert.Equal(t, string(data[:tc.want]), string(got))
		})
	}
}

// A record file larger than a reader accepts is an error naming it.
func TestReadJSONTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(maxJSONFile+1))
	require.NoError(t, f.Close())
	var v any
	err = ReadJSON(path, &v)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than")
	assert.Contains(t, err.Error(), path)
}
