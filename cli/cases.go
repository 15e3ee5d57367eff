package cli

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

// CaseSuffix is how case files are named inside a directory of cases.
const CaseSuffix = ".case.json"

// LoadCases reads the cases named by paths: a file is read whatever its
// name; a directory is searched recursively for *.case.json files (dot
// directories and node_modules skipped). With tags, only cases carrying at
// least one of them are kept (case-insensitive). Every unreadable or
// invalid file is reported at once, its path once followed by each of its
// problems; two cases with the same canonical id are an error.
func LoadCases(paths []string, tags []string) ([]*lux.Case, error) {
	files, errs := readCaseFiles(paths)
	var cases []*lux.Case
	for _, f := range files {
		err := f.err
		if err == nil {
			err = f.c.Validate()
		}
		if err != nil {
			errs = append(errs, fileError(f.path, problemsOf(err)))
			continue
		}
		if len(tags) > 0 && !hasAnyTag(f.c, tags) {
			continue
		}
		cases = append(cases, f.c)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].CanonicalID() < cases[j].CanonicalID() })
	return cases, nil
}

// caseFile is one case file as read: its case, or why it could not be
// read as one.
type caseFile struct {
	path string
	c    *lux.Case
	err  error
}

// readCaseFiles reads (strictly, without validating) every case file that
// paths name, in order; errs are the paths that could not be searched. A
// case whose id another file already has gets that as its error.
func readCaseFiles(paths []string) (files []caseFile, errs []error) {
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
		found, err := findCaseFiles(p)
		if err != nil {
			errs = append(errs, err)
		}
		if len(found) == 0 && err == nil {
			errs = append(errs, fmt.Errorf("%s: no *%s files in this directory", p, CaseSuffix))
		}
		names = append(names, found...)
	}
	byID := map[string]string{}
	for _, name := range names {
		c, err := lux.ReadCase(name)
		f := caseFile{path: name, c: c, err: err}
		if err == nil {
			id := c.CanonicalID()
			if prev, dup := byID[id]; dup {
				f.c, f.err = nil, &lux.FieldError{Path: "id", Problem: fmt.Sprintf("%q is also the id of %s", id, displayPath(prev)), Fix: "give each case its own id"}
			} else {
				byID[id] = name
			}
		}
		files = append(files, f)
	}
	return files, errs
}

// fileError is the problems of one case file: its path once, then each
// problem on its own line.
func fileError(path string, probs []Problem) error {
	var b strings.Builder
	b.WriteString(displayPath(path) + ":")
	for _, p := range probs {
		b.WriteString("\n  - " + p.String())
	}
	return errors.New(b.String())
}

// findCaseFiles lists the case files under dir. A *.case.json that is a
// symlink is not followed: it is reported, next to the files found.
func findCaseFiles(dir string) ([]string, error) {
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
		if !strings.HasSuffix(d.Name(), CaseSuffix) {
			return nil
		}
		switch {
		case d.Type().IsRegular():
			out = append(out, path)
		case d.Type()&fs.ModeSymlink != 0:
			links = append(links, fmt.Errorf("%s: a symlink, not followed when searching a directory (name it on the command line to use it, or copy the case here)", displayPath(path)))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	sort.Strings(out)
	return out, errors.Join(links...)
}

func hasAnyTag(c *lux.Case, tags []string) bool {
	return slices.ContainsFunc(c.Tags, func(t string) bool {
		return slices.ContainsFunc(tags, func(want string) bool { return strings.EqualFold(t, want) })
	})
}

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l = append(*l, part)
		}
	}
	return nil
}
