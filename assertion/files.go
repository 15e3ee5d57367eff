package assertion

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"regexp"

	"github.com/luxeval/lux"
)

// Size limits of the files assertions read.
const (
	MaxTextFileBytes  = 10 << 20 // file-contains, json-pointer-equals
	MaxRegexFileBytes = 5 << 20  // file-matches, file-regex-count
)

type fileExistsConfig struct {
	Path string `json:"path"`
	In   string `json:"in,omitempty"`
}

func fileExists() *lux.AssertionPlugin {
	return define("file-exists",
		"Passes when path names a regular file (a symlink is refused, never followed).",
		func(c *fileExistsConfig, p *lux.Problems) {
			checkIn(&c.In, p)
			checkPath("path", c.Path, c.In, p)
		},
		func(_ context.Context, c *fileExistsConfig, run *lux.Run) (lux.Result, error) {
			root, err := rootOf(run, c.In)
			if err != nil {
				return lux.Result{}, fmt.Errorf("assertion: file-exists: %w", err)
			}
			info, err := root.Stat(c.Path)
			if err != nil {
				if refused(err) {
					return refusedResult(root, c.Path, c.In, err), nil
				}
				return lux.Result{}, fmt.Errorf("assertion: file-exists: %w", err)
			}
			if !info.Mode().IsRegular() {
				return Fail(fmt.Sprintf("%q is not a regular file (in the %s)", c.Path, root.Name),
					map[string]any{"path": c.Path, "in": c.In, "mode": info.Mode().String()}), nil
			}
			return Pass(fmt.Sprintf("%q exists (%d bytes)", c.Path, info.Size()),
				map[string]any{"path": c.Path, "in": c.In, "size": info.Size()}), nil
		})
}

type fileContainsConfig struct {
	Path string `json:"path"`
	Text string `json:"text"`
	In   string `json:"in,omitempty"`
}

func fileContains() *lux.AssertionPlugin {
	return define("file-contains",
		"Passes when the file at path (at most 10 MiB) contains text, byte for byte.",
		func(c *fileContainsConfig, p *lux.Problems) {
			checkIn(&c.In, p)
			checkPath("path", c.Path, c.In, p)
			if c.Text == "" {
				p.AddFix("text", "required", "give the text the file must contain")
			}
		},
		func(_ context.Context, c *fileContainsConfig, run *lux.Run) (lux.Result, error) {
			data, res, err := readFile("file-contains", run, c.In, c.Path, MaxTextFileBytes)
			if res != nil || err != nil {
				return deref(res), err
			}
			detail := map[string]any{"path": c.Path, "in": c.In, "size": len(data)}
			if i := bytes.Index(data, []byte(c.Text)); i >= 0 {
				detail["offset"] = i
				return Pass(fmt.Sprintf("%q contains %q", c.Path, clip(c.Text, 80)), detail), nil
			}
			return Fail(fmt.Sprintf("%q does not contain %q", c.Path, clip(c.Text, 80)), detail), nil
		})
}

type fileMatchesConfig struct {
	Path    string `json:"path"`
	Pattern string `json:"pattern"`
	Flags   string `json:"flags,omitempty"`
	In      string `json:"in,omitempty"`

	re *regexp.Regexp
}

func fileMatches() *lux.AssertionPlugin {
	return define("file-matches",
		"Passes when the Go regular expression pattern (flags i, m, s) matches the file at path (at most 5 MiB).",
		func(c *fileMatchesConfig, p *lux.Problems) {
			checkIn(&c.In, p)
			checkPath("path", c.Path, c.In, p)
			c.re = checkRegexp(c.Pattern, c.Flags, p)
		},
		func(_ context.Context, c *fileMatchesConfig, run *lux.Run) (lux.Result, error) {
			data, res, err := readFile("file-matches", run, c.In, c.Path, MaxRegexFileBytes)
			if res != nil || err != nil {
				return deref(res), err
			}
			detail := map[string]any{"path": c.Path, "in": c.In, "pattern": c.Pattern}
			if loc := c.re.FindIndex(data); loc != nil {
				detail["match"] = clip(string(data[loc[0]:loc[1]]), 200)
				detail["offset"] = loc[0]
				return Pass(fmt.Sprintf("%q matches /%s/", c.Path, c.Pattern), detail), nil
			}
			return Fail(fmt.Sprintf("%q does not match /%s/", c.Path, c.Pattern), detail), nil
		})
}

type fileRegexCountConfig struct {
	Path    string `json:"path"`
	Pattern string `json:"pattern"`
	Flags   string `json:"flags,omitempty"`
	Min     *int   `json:"min,omitempty"`
	Max     *int   `json:"max,omitempty"`
	In      string `json:"in,omitempty"`

	re *regexp.Regexp
}

func fileRegexCount() *lux.AssertionPlugin {
	return define("file-regex-count",
		"Passes when the number of non-overlapping matches of pattern in the file at path is within min and max.",
		func(c *fileRegexCountConfig, p *lux.Problems) {
			checkIn(&c.In, p)
			checkPath("path", c.Path, c.In, p)
			c.re = checkRegexp(c.Pattern, c.Flags, p)
			if c.re != nil && c.re.MatchString("") {
				p.AddFix("pattern", fmt.Sprintf("/%s/ matches the empty string, so it would match at every position", c.Pattern),
					"make the pattern match at least one character")
			}
			b := bounds{c.Min, c.Max}
			b.validate("min", "max", true, p)
			if c.Min != nil && c.Max == nil && *c.Min == 0 {
				p.AddFix("min", "must be above 0 when max is not given", "min 0 alone is always true; give max, or min of 1 or more")
			}
		},
		func(_ context.Context, c *fileRegexCountConfig, run *lux.Run) (lux.Result, error) {
			data, res, err := readFile("file-regex-count", run, c.In, c.Path, MaxRegexFileBytes)
			if res != nil || err != nil {
				return deref(res), err
			}
			// Counting stops once the verdict is settled: one past max, or
			// min when there is no max.
			stop := bounds{c.Min, c.Max}.stopAfter()
			count := len(c.re.FindAllIndex(data, stop))
			exact := stop < 0 || count < stop
			b := bounds{c.Min, c.Max}
			ok, why := b.check(count)
			what := plural(count, "match", "matches")
			if !exact {
				what = "at least " + what
			}
			detail := b.detail(map[string]any{"path": c.Path, "in": c.In, "pattern": c.Pattern, "count": count, "exact": exact})
			comment := fmt.Sprintf("%s of /%s/ in %q: %s", what, c.Pattern, c.Path, why)
			return verdict(ok, comment, detail), nil
		})
}

// stopAfter is how many matches settle a count against b: max+1, or min
// when there is no max; -1 (count them all) when max+1 does not fit.
func (b bounds) stopAfter() int {
	switch {
	case b.max != nil && *b.max == math.MaxInt:
		return -1
	case b.max != nil:
		return *b.max + 1
	case b.min != nil:
		return *b.min
	}
	return 1
}

func deref(r *lux.Result) lux.Result {
	if r == nil {
		return lux.Result{}
	}
	return *r
}
