package safefs

import (
	"errors"
	"io/fs"
	"path/filepath"
)

// SkipDir, returned by a WalkFiles callback for a directory, skips it.
var SkipDir = fs.SkipDir

// WalkFiles calls fn for every entry below the directory rel of r (rel "."
// for the whole root), in lexical order, with its slash-separated path
// relative to the root and its Lstat info. Symbolic links are reported as
// links and never followed; fn decides what to do with each entry and may
// return SkipDir for a directory.
func (r Root) WalkFiles(rel string, fn func(rel string, info fs.FileInfo) error) error {
	start, err := r.DirPath(rel)
	if err != nil {
		return err
	}
	return filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return &Error{Path: p, Problem: "cannot be listed: " + unwrapPathError(err).Error(), Err: err}
		}
		if p == start {
			return nil
		}
		relPath, err := filepath.Rel(r.Dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while walking
			}
			return &Error{Path: relPath, Problem: "cannot be inspected: " + unwrapPathError(err).Error(), Err: err}
		}
		return fn(filepath.ToSlash(relPath), info)
	})
}
