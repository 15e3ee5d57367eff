package safefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// SkipDir, returned by a WalkFiles callback for a directory, skips it.
var SkipDir = fs.SkipDir

// WalkFiles calls fn for every entry below the directory rel of r (rel "."
// for the whole root), in lexical order, with its slash-separated path
// relative to the root and its Lstat info. Symbolic links are reported as
// links and never followed; fn decides what to do with each entry and may
// return SkipDir for a directory (for a file: skip the rest of its
// directory) or fs.SkipAll.
//
// Directories are opened from a descriptor of the root (os.Root), never by
// path, and opening one never blocks: whatever changes while the tree is
// walked, the walk lists nothing outside the root. A directory swapped for
// a symlink leading out of the root, or for something that is not a
// directory, is refused with an error wrapping ErrChanged.
func (r Root) WalkFiles(rel string, fn func(rel string, info fs.FileInfo) error) error {
	cleaned, _, info, err := r.resolve(rel)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return &Error{Path: rel, Problem: "is not a directory", Err: ErrNotDir}
	}
	root, err := os.OpenRoot(r.Dir)
	if err != nil {
		return &Error{Path: rel, Problem: fmt.Sprintf("cannot be listed: the %s: %v", r.name(), unwrapPathError(err)), Err: err}
	}
	defer root.Close()
	err = r.walkDir(root, cleaned, fn)
	if errors.Is(err, fs.SkipDir) || errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

// walkDir lists the directory dir (cleaned, relative to the root) and
// walks its entries.
func (r Root) walkDir(root *os.Root, dir string, fn func(rel string, info fs.FileInfo) error) error {
	f, err := root.OpenFile(dir, os.O_RDONLY|dirFlags, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while walking
		}
		return r.openError(dir, "listed", err)
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return &Error{Path: dir, Problem: "cannot be listed: " + unwrapPathError(err).Error(), Err: err}
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range entries {
		rel := e.Name()
		if dir != "." {
			rel = path.Join(dir, rel)
		}
		// Entries of a directory opened in an os.Root carry their Lstat,
		// taken relative to the directory's descriptor.
		info, err := e.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed while walking
			}
			return &Error{Path: rel, Problem: "cannot be inspected: " + unwrapPathError(err).Error(), Err: err}
		}
		if err := fn(rel, info); err != nil {
			if errors.Is(err, fs.SkipDir) {
				if info.IsDir() {
					continue
				}
				return nil // a file: skip the rest of this directory
			}
			return err
		}
		if info.IsDir() {
			if err := r.walkDir(root, rel, fn); err != nil {
				return err
			}
		}
	}
	return nil
}
