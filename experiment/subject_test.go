package experiment

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func subjectOf(t *testing.T, f *fixture, mutable ...string) *subject {
	t.Helper()
	c := &Campaign{Dir: f.dir, Subject: Subject{Root: "subject", Mutable: mutable}}
	s, err := c.subject()
	require.NoError(t, err)
	return s
}

func TestCaptureRefusesWhatIsNotText(t *testing.T) {
	tests := []struct {
		name, file, content, want string
	}{
		{"a NUL byte", "bin.md", "a\x00b", "bin.md contains a NUL byte"},
		{"not UTF-8", "latin.md", "caf\xe9", "latin.md is not UTF-8 text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "x")
			f.write(t, "subject/"+tt.file, tt.content)
			_, err := subjectOf(t, f, "*.md").capture()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	t.Run("a symlink", func(t *testing.T) {
		f := newFixture(t, "x")
		require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(f.dir, "subject", "link.md")))
		_, err := subjectOf(t, f, "*.md").capture()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "link.md is not a regular file (symlinks are never followed)")
	})
	t.Run("nothing matched", func(t *testing.T) {
		f := newFixture(t, "x")
		_, err := subjectOf(t, f, "*.txt").capture()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "the mutable globs match no file")
	})
}

func TestVariantsReplaceExistingMutableFilesOnly(t *testing.T) {
	f := newFixture(t, "x")
	s := subjectOf(t, f, "AGENTS.md")
	base, err := s.capture()
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"AGENTS.md": "x"}, base.Files, "README.md is not mutable")
	_, err = s.variant(base, Variant{ID: "v", Files: map[string]string{"README.md": "y", "NEW.md": "z"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "files.NEW.md: not a mutable file of the subject")
	assert.Contains(t, err.Error(), "files.README.md: not a mutable file")
	v, err := s.variant(base, Variant{ID: "v", Files: map[string]string{"AGENTS.md": "y"}})
	require.NoError(t, err)
	assert.NotEqual(t, base.Hash, v.Hash)
	assert.Equal(t, int64(1), v.Bytes)
	require.NoError(t, v.verify())
	v.Files["AGENTS.md"] = "tampered"
	assert.Error(t, v.verify(), "a candidate whose files no longer match its hash")
}

func TestMaterializeLeavesOutExcludedPathsAndDetectsChanges(t *testing.T) {
	f := newFixture(t, "x")
	f.write(t, "subject/.git/HEAD", "ref")
	f.write(t, "subject/.env", "KEY=secret")
	f.write(t, "subject/node_modules/m/index.js", "x")
	f.write(t, "subject/docs/guide.md", "keep")
	s := subjectOf(t, f, "AGENTS.md")
	base, err := s.capture()
	require.NoError(t, err)
	v, err := s.variant(base, Variant{ID: "v", Files: map[string]string{"AGENTS.md": "new"}})
	require.NoError(t, err)
	dst := filepath.Join(t.TempDir(), "tree")
	h, err := s.materialize(v, dst)
	require.NoError(t, err)
	for _, gone := range []string{".git", ".env", "node_modules"} {
		_, err := os.Lstat(filepath.Join(dst, gone))
		assert.True(t, os.IsNotExist(err), "%s is left out", gone)
	}
	b, _ := os.ReadFile(filepath.Join(dst, "docs", "guide.md"))
	assert.Equal(t, "keep", string(b))
	b, _ = os.ReadFile(filepath.Join(dst, "AGENTS.md"))
	assert.Equal(t, "new", string(b))

	again, err := s.hash(dst)
	require.NoError(t, err)
	assert.Equal(t, h, again)
	require.NoError(t, os.WriteFile(filepath.Join(dst, "docs", "added.md"), []byte("x"), 0o644))
	changed, err := s.hash(dst)
	require.NoError(t, err)
	assert.NotEqual(t, h, changed, "an added file changes the tree's hash")
	baseHash, err := s.hash(s.root)
	require.NoError(t, err)
	f.write(t, "subject/.env", "KEY=other")
	same, err := s.hash(s.root)
	require.NoError(t, err)
	assert.Equal(t, baseHash, same, "excluded files are not part of the subject")
}
