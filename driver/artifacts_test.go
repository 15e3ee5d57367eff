package driver_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func writeFile(root, rel, content string) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

func TestWalkArtifacts(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	for rel, content := range map[string]string{
		"b.txt":                   "b",
		"a/z.go":                  "package z",
		"a-b":                     "dash",
		".env":                    "dot file kept",
		".git/config":             "skipped",
		"sub/.cache/x":            "skipped",
		"node_modules/m/index.js": "skipped",
		"sub/node_modules/y":      "skipped",
	} {
		require.NoError(t, writeFile(root, rel, content))
	}
	require.NoError(t, writeFile(outside, "secret", "outside"))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "link-file")))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "link-dir")))
	require.NoError(t, os.Symlink("missing", filepath.Join(root, "dangling")))

	got, err := driver.WalkArtifacts(root, 0)
	require.NoError(t, err)
	want := []lux.Artifact{
		{Path: ".env", Size: 13, SHA256: sha("dot file kept")},
		{Path: "a-b", Size: 4, SHA256: sha("dash")},
		{Path: "a/z.go", Size: 9, SHA256: sha("package z")},
		{Path: "b.txt", Size: 1, SHA256: sha("b")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("artifacts (-want +got):\n%s", diff)
	}
}

func TestWalkArtifactsLimit(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"1", "2", "3"} {
		require.NoError(t, writeFile(root, name, name))
	}
	got, err := driver.WalkArtifacts(root, 3)
	require.NoError(t, err)
	assert.Len(t, got, 3)
	_, err = driver.WalkArtifacts(root, 2)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "artifact collection exceeds 2 files")
}

func TestWalkArtifactsRoot(t *testing.T) {
	_, err := driver.WalkArtifacts(filepath.Join(t.TempDir(), "missing"), 0)
	require.Error(t, err)
	f := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(f, nil, 0o644))
	_, err = driver.WalkArtifacts(f, 0)
	require.ErrorContains(t, err, "is not a directory")

	// The root itself may be a symlink (as /tmp is on some systems).
	root := t.TempDir()
	require.NoError(t, writeFile(root, "x", "x"))
	link := filepath.Join(t.TempDir(), "ws")
	require.NoError(t, os.Symlink(root, link))
	got, err := driver.WalkArtifacts(link, 0)
	require.NoError(t, err)
	assert.Equal(t, []lux.Artifact{{Path: "x", Size: 1, SHA256: sha("x")}}, got)
}
