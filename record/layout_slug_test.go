package record

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Long case ids give directory names a file system accepts, and two ids
// that differ only past the cut still get directories of their own.
func TestSlugOfLongIDs(t *testing.T) {
	long := strings.Repeat("abcdefghij", 30)
	a, b := Slug(long), Slug(long+"x")
	assert.NotEqual(t, a, b)
	for _, s := range []string{a, b, Slug("api/" + long + "/login"), NameSlug(long)} {
		for _, seg := range strings.Split(s, "/") {
			assert.LessOrEqual(t, len(seg), MaxSlugSegment, s)
		}
	}
	assert.Equal(t, "api/"+a+"/login", Slug("api/"+long+"/login"), "segments are cut one by one")
	assert.Equal(t, Slug(long), a, "the same id always gives the same slug")
	short := strings.Repeat("x", MaxSlugSegment)
	assert.Equal(t, short, Slug(short), "ids that fit are unchanged")

	root := t.TempDir()
	dir, err := ReserveRunDir(root, long, "fake", time.Now())
	require.NoError(t, err)
	_, err = os.Stat(dir)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(dir, filepath.Join(root, a)))
}

// A case id that looks like a timestamp names a directory FindRuns must
// look into, while the workspace of a run that never finished is not
// searched.
func TestFindRunsUnderATimestampLikeCaseID(t *testing.T) {
	root := t.TempDir()
	stamp := "2025-01-02T03-04-05-678Z"
	var want []string
	for _, id := range []string{stamp, "api/" + stamp + "/login", "plain"} {
		dir, err := ReserveRunDir(root, id, "fake", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
		require.NoError(t, err)
		require.NoError(t, WriteJSON(filepath.Join(dir, MetadataFile), map[string]any{"caseId": id}))
		want = append(want, dir)
	}
	// A run that crashed before run.json, whose workspace holds what looks
	// like a run: neither is a run.
	crashed, err := ReserveRunDir(root, "plain", "fake", time.Date(2025, 1, 1, 0, 0, 1, 0, time.UTC))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(crashed, EventsFile), nil, 0o600))
	inner := filepath.Join(crashed, ArtifactsDir, "x", "fake", stamp)
	require.NoError(t, os.MkdirAll(inner, 0o700))
	require.NoError(t, WriteJSON(filepath.Join(inner, MetadataFile), map[string]any{}))

	got, err := FindRuns(root)
	require.NoError(t, err)
	assert.ElementsMatch(t, want, got)
}
