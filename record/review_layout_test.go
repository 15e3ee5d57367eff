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
