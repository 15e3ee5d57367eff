package record

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSlug(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello-world", "hello-world"},
		{"nested", "api/login", "api/login"},
		{"spaces and dots", "my case.v2", "my-case-v2"},
		{"collapses", "a//b--c  d", "a/b-c-d"},
		{"trims slashes", "/a/", "a"},
		{"unicode", "café", "caf-"},
		{"empty", "", "_"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Slug(tt.in))
		})
	}
	assert.Equal(t, "a-b", NameSlug("a/b"))
}

func TestTimestamp(t *testing.T) {
	ts := time.Date(2025, 1, 2, 3, 4, 5, 678_900_000, time.FixedZone("x", 3600))
	assert.Equal(t, "2025-01-02T02-04-05-678Z", Timestamp(ts))
	assert.True(t, IsStampName("2025-01-02T02-04-05-678Z"))
	assert.True(t, IsStampName("2025-01-02T02-04-05-678Z-12"))
	assert.False(t, IsStampName("artifacts"))
}

func TestReserveRunDirIsCollisionSafe(t *testing.T) {
	root := t.TempDir()
	ts := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	const n = 20
	dirs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { dirs[i], errs[i] = ReserveRunDir(root, "api/login", "subprocess", ts) })
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := range n {
		require.NoError(t, errs[i])
		assert.False(t, seen[dirs[i]], "directory %s handed out twice", dirs[i])
		seen[dirs[i]] = true
	}
	assert.True(t, seen[filepath.Join(root, "api", "login", "subprocess", "2025-01-02T03-04-05-000Z")])
	assert.True(t, seen[filepath.Join(root, "api", "login", "subprocess", "2025-01-02T03-04-05-000Z-20")])
	fi, err := os.Stat(dirs[0])
	require.NoError(t, err)
	assert.Equal(t, DirPerm, fi.Mode().Perm())
}

func TestFindRuns(t *testing.T) {
	root := t.TempDir()
	ts := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	a, err := ReserveRunDir(root, "a", "d", ts)
	require.NoError(t, err)
	b, err := ReserveRunDir(root, "b/c", "d", ts)
	require.NoError(t, err)
	_, err = ReserveRunDir(root, "no-metadata", "d", ts) // not a run yet: no run.json
	require.NoError(t, err)
	s, err := ReserveSuiteDir(root, ts)
	require.NoError(t, err)
	for _, d := range []string{a, b, s} {
		require.NoError(t, os.WriteFile(filepath.Join(d, MetadataFile), []byte("{}"), FilePerm))
	}
	got, err := FindRuns(root)
	require.NoError(t, err)
	if diff := cmp.Diff([]string{a, b}, got); diff != "" {
		t.Errorf("FindRuns (-want +got):\n%s", diff)
	}
	suites, err := FindSuites(root)
	require.NoError(t, err)
	assert.Equal(t, []string{s}, suites)

	none, err := FindRuns(filepath.Join(root, "missing"))
	require.NoError(t, err)
	assert.Empty(t, none)
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.json")
	require.NoError(t, WriteFileAtomic(path, []byte("one")))
	require.NoError(t, WriteFileAtomic(path, []byte("two")))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "two", string(b))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, FilePerm, fi.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left behind")

	err = WriteFileAtomic(filepath.Join(dir, "missing", "x.json"), []byte("x"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "missing", "x.json"))
}

func TestCompareStampNames(t *testing.T) {
	names := []string{"2025-01-01T00-00-00-000Z-10", "zzz", "2025-01-01T00-00-00-001Z", "2025-01-01T00-00-00-000Z-2.json", "2025-01-01T00-00-00-000Z"}
	slices.SortFunc(names, CompareStampNames)
	assert.Equal(t, []string{"2025-01-01T00-00-00-000Z", "2025-01-01T00-00-00-000Z-2.json", "2025-01-01T00-00-00-000Z-10", "2025-01-01T00-00-00-001Z", "zzz"}, names)
}
