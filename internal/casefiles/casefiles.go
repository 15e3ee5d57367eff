// Package casefiles finds and reads case files the one way the lux command
// and luxtest both use: a file is read whatever its name, a directory is
// searched for *.case.json files, and every problem of every file is
// reported at once, each file named once.
package casefiles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/luxeval/lux"
)

// Suffix is how case files are named inside a directory of cases.
const Suffix = ".case.json"

// Load reads the cases named by paths: a file is read whatever its name;
// a directory is searched recursively for *.case.json files (dot
// directories and node_modules skipped). With tags, only cases carrying at
// least one of them are kept (case-insensitive). Every unreadable or
// invalid file is reported at once, its path once followed by each of its
// problems; two cases with the same canonical id are an error. The cases
// come sorted by canonical id.
func Load(paths []string, tags []string) ([]*lux.Case, error) {
	files, errs := Read(paths, (*lux.Case).Validate)
	var cases []*lux.Case
	for _, f := range files {
		if f.Err != nil {
			errs = append(errs, FileError(f.Path, problemLines(f.Err)))
			continue
		}
		if len(tags) > 0 && !HasAnyTag(f.Case, tags) {
			continue
		}
		cases = append(cases, f.Case)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].CanonicalID() < cases[j].CanonicalID() })
	return cases, nil
}

// File is one case file as read: its case, or why it could not be read as
// one.
type File struct {
	Path string
	Case *lux.Case
	Err  error
}

// Read reads (strictly) every case file that paths name, in order,
// running validate on each in the same pass (see lux.ReadCase), so that a
// misspelt field does not hide a file's other problems; errs are the paths
// that could not be searched. A case whose id another file already has
// gets that as its Err.
func Read(paths []string, validate ...func(*lux.Case) error) (files []File, errs []error) {
	var names []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !fi.IsDir() {
			names = append(names, p)
			continue
		}
		found, err := find(p)
		if err != nil {
			errs = append(errs, err)
		}
		if len(found) == 0 && err == nil {
			errs = append(errs, fmt.Errorf("%s: no *%s files in this directory", p, Suffix))
		}
		names = append(names, found...)
	}
	byID := map[string]string{}
	for _, name := range names {
		c, err := lux.ReadCase(name, validate...)
		f := File{Path: name, Case: c, Err: err}
		if err == nil {
			id := c.CanonicalID()
			if prev, dup := byID[id]; dup {
				f.Case, f.Err = nil, &lux.FieldError{Path: "id", Problem: fmt.Sprintf("%q is also the id of %s", id, DisplayPath(prev)), Fix: "give each case its own id"}
			} else {
				byID[id] = name
			}
		}
		files = append(files, f)
	}
	return files, errs
}

// FileError is the problems of one case file: its path once (see
// DisplayPath), then each problem on its own line.
func FileError(path string, problems []string) error {
	var b strings.Builder
	b.WriteString(DisplayPath(path) + ":")
	for _, p := range problems {
		b.WriteString("\n  - " + p)
	}
	return errors.New(b.String())
}

// problemLines is each problem of err on a line: a field problem with its
// path and fix.
func problemLines(err error) []string {
	var out []string
	for _, e := range lux.ProblemsOf(err) {
		var fe *lux.FieldError
		if errors.As(e, &fe) {
			out = append(out, fe.Error())
			continue
		}
		out = append(out, e.Error())
	}
	return out
}

// find lists the case files under dir. A *.case.json that is a symlink is
// not followed: it is reported, next to the files found.
func find(dir string) ([]string, error) {
	var out []string
	var links []error
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != dir && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), Suffix) {
			return nil
		}
		switch {
		case d.Type().IsRegular():
			out = append(out, path)
		case d.Type()&fs.ModeSymlink != 0:
			links = append(links, fmt.Errorf("%s: a symlink, not followed when searching a directory (name it on the command line to use it, or copy the case here)", DisplayPath(path)))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	sort.Strings(out)
	return out, errors.Join(links...)
}

// HasAnyTag reports whether c carries one of tags (case-insensitive).
func HasAnyTag(c *lux.Case, tags []string) bool {
	return slices.ContainsFunc(c.Tags, func(t string) bool {
		return slices.ContainsFunc(tags, func(want string) bool { return strings.EqualFold(t, want) })
	})
}

// DisplayPath is path as a user can use it from the working directory:
// relative when it is under it, else absolute.
func DisplayPath(path string) string {
	if path == "" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	wd, err := os.Getwd()
	if err != nil {
		return abs
	}
	rel, err := filepath.Rel(wd, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return rel
}
