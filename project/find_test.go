package project_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/project"
)

// Find walks up from the directory it is given, as the go command looks
// for go.mod, and stops at the root of the repository holding it.
func TestFindWalksUp(t *testing.T) {
	t.Parallel()
	mk := func(t *testing.T, parts ...string) string {
		t.Helper()
		p := filepath.Join(parts...)
		require.NoError(t, os.MkdirAll(p, 0o755))
		return p
	}
	put := func(t *testing.T, dir, name, body string) {
		t.Helper()
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}

	t.Run("from a subdirectory", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		put(t, root, project.FileName, `{"runsRoot": "records"}`)
		sub := mk(t, root, "cases", "deep")
		f, err := project.Find(sub)
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(root, project.FileName), f.Path)
		o, err := f.Options("")
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(root, "records"), o.RunsRoot, "relative paths are relative to the file, not the working directory")
		assert.Equal(t, root, o.ProjectDir, "${PROJECT_DIR} is the file's directory")
	})
	t.Run("the nearest wins", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		put(t, root, project.FileName, `{}`)
		inner := mk(t, root, "inner")
		put(t, inner, project.FileName, `{}`)
		f, err := project.Find(mk(t, inner, "x"))
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(inner, project.FileName), f.Path)
	})
	t.Run("stops at the repository root", func(t *testing.T) {
		t.Parallel()
		outer := t.TempDir()
		put(t, outer, project.FileName, `{}`)
		repo := mk(t, outer, "repo")
		mk(t, repo, ".git")
		f, err := project.Find(mk(t, repo, "cases"))
		require.NoError(t, err)
		assert.Empty(t, f.Path, "a lux.json above the repository is not this project's")
	})
	t.Run("a file at the repository root is found", func(t *testing.T) {
		t.Parallel()
		repo := t.TempDir()
		put(t, repo, ".git", "gitdir: /elsewhere\n")
		put(t, repo, project.FileName, `{}`)
		f, err := project.Find(mk(t, repo, "a", "b"))
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(repo, project.FileName), f.Path)
	})
	t.Run("none", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		mk(t, dir, ".git")
		f, err := project.Find(dir)
		require.NoError(t, err)
		assert.Empty(t, f.Path)
	})
	t.Run("a directory named lux.json is not a project file", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		mk(t, root, ".git")
		mk(t, root, "sub", project.FileName)
		f, err := project.Find(filepath.Join(root, "sub"))
		require.NoError(t, err)
		assert.Empty(t, f.Path)
	})
}
