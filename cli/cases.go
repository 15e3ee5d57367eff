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
// invalid file is reported at once, with its path; two cases with the same
// canonical id are an error.
func LoadCases(paths []string, tags []string) ([]*lux.Case, error) {
	var files []string
	var errs []error
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
			continue
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		found, err := findCaseFiles(p)
		if err != nil {
			errs = append(errs, err)
		}
		if len(found) == 0 && err == nil {
			errs = append(errs, fmt.Errorf("%s: no *%s files in this directory", p, CaseSuffix))
		}
		files = append(files, found...)
	}
	var cases []*lux.Case
	byID := map[string]string{}
	for _, f := range files {
		c, err := lux.LoadCase(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		id := c.CanonicalID()
		if prev, dup := byID[id]; dup {
			errs = append(errs, fmt.Errorf("%s: case id %q is also the id of %s (give each case its own id)", f, id, prev))
			continue
		}
		byID[id] = f
		if len(tags) > 0 && !hasAnyTag(c, tags) {
			continue
		}
		cases = append(cases, c)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].CanonicalID() < cases[j].CanonicalID() })
	return cases, nil
}

func findCaseFiles(dir string) ([]string, error) {
	var out []string
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
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), CaseSuffix) {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	sort.Strings(out)
	return out, nil
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
