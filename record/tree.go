package record

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/luxeval/lux/internal/safefs"
)

// MaxWorkspaceEntries bounds the walk of WorkspaceTree: the entries past
// it are not fingerprinted.
const MaxWorkspaceEntries = 250_000

// Tree is the fingerprint of a workspace's file tree (see
// Evidence.WorkspaceSHA256).
type Tree struct {
	SHA256  string
	Entries int
	// Files are the slash-separated paths of its regular files.
	Files []string
}

// WorkspaceTree fingerprints the tree under dir without following
// symbolic links: each entry's path, kind, permission bits, size (of
// regular files) and link target (of symlinks), in path order, up to
// MaxWorkspaceEntries entries. A missing dir is an empty tree.
func WorkspaceTree(dir string) (*Tree, error) {
	h := sha256.New()
	t := &Tree{}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		t.SHA256 = hex.EncodeToString(h.Sum(nil))
		return t, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	defer root.Close()
	err = safefs.Root{Dir: dir, Name: "workspace"}.WalkFiles(".", func(rel string, info fs.FileInfo) error {
		if t.Entries == MaxWorkspaceEntries {
			return fs.SkipAll
		}
		t.Entries++
		mode := info.Mode()
		var extra string
		switch {
		case mode.IsRegular():
			extra = fmt.Sprint(info.Size())
			t.Files = append(t.Files, rel)
		case mode&fs.ModeSymlink != 0:
			link, err := root.Readlink(rel)
			if err != nil {
				return err
			}
			extra = link
		}
		fmt.Fprintf(h, "%q %s %q\n", rel, mode.Type()|mode.Perm(), extra)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("record: fingerprint %s: %w", dir, err)
	}
	t.SHA256 = hex.EncodeToString(h.Sum(nil))
	return t, nil
}
