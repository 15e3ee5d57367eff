package assertion

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/safefs"
)

// maxGlobExpansions bounds the patterns one glob's braces expand to.
const maxGlobExpansions = 256

// glob is a compiled glob: its brace expansions, each split in segments.
type glob [][]string

// compileGlob parses a slash-separated glob: segments use path.Match syntax
// (*, ?, [...], \ escapes), a "**" segment matches any number of
// directories, and {a,b} alternatives expand. Names starting with a dot are
// matched only by a segment that starts with a dot.
func compileGlob(pattern string) (glob, error) {
	if pattern == "" {
		return nil, errors.New("required")
	}
	if strings.ContainsRune(pattern, 0) {
		return nil, errors.New("contains a NUL byte")
	}
	if strings.HasPrefix(pattern, "/") {
		return nil, fmt.Errorf("%q is absolute", pattern)
	}
	alts, err := expandBraces(pattern)
	if err != nil {
		return nil, err
	}
	var g glob
	for _, alt := range alts {
		if strings.HasPrefix(alt, "/") {
			return nil, fmt.Errorf("%q is absolute", pattern)
		}
		var segs []string
		for _, seg := range strings.Split(alt, "/") {
			switch {
			case seg == "" || seg == ".":
				continue
			case seg == "..":
				return nil, fmt.Errorf("%q climbs out with \"..\"", pattern)
			case seg == "**":
				if len(segs) > 0 && segs[len(segs)-1] == "**" {
					continue
				}
			case strings.Contains(seg, "**"):
				return nil, fmt.Errorf("%q: \"**\" must be a whole path segment", pattern)
			default:
				if _, err := path.Match(seg, ""); err != nil {
					return nil, fmt.Errorf("%q: bad segment %q", pattern, seg)
				}
			}
			segs = append(segs, seg)
		}
		if len(segs) == 0 {
			return nil, fmt.Errorf("%q matches no file", pattern)
		}
		g = append(g, segs)
	}
	return g, nil
}

// expandBraces expands {a,b} alternatives, nested ones included.
func expandBraces(s string) ([]string, error) {
	open := -1
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == '{' {
			open = i
			break
		}
	}
	if open < 0 {
		return []string{s}, nil
	}
	depth, start := 0, open+1
	var parts []string
	closeAt := -1
	for i := open; i < len(s) && closeAt < 0; i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				parts = append(parts, s[start:i])
				closeAt = i
			}
		case ',':
			if depth == 1 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	if closeAt < 0 {
		return nil, fmt.Errorf("%q has an unclosed \"{\"", s)
	}
	var out []string
	for _, p := range parts {
		rest, err := expandBraces(s[:open] + p + s[closeAt+1:])
		if err != nil {
			return nil, err
		}
		out = append(out, rest...)
		if len(out) > maxGlobExpansions {
			return nil, fmt.Errorf("%q expands to more than %d patterns", s, maxGlobExpansions)
		}
	}
	return out, nil
}

func segMatch(pat, name string) bool {
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(pat, ".") {
		return false
	}
	ok, _ := path.Match(pat, name)
	return ok
}

func matchSegs(pat, name []string) bool {
	if len(pat) == 0 {
		return len(name) == 0
	}
	if pat[0] == "**" {
		if matchSegs(pat[1:], name) {
			return true
		}
		return len(name) > 0 && !strings.HasPrefix(name[0], ".") && matchSegs(pat, name[1:])
	}
	return len(name) > 0 && segMatch(pat[0], name[0]) && matchSegs(pat[1:], name[1:])
}

// mayContain reports whether a file below the directory dir could match.
func mayContain(pat, dir []string) bool {
	if len(dir) == 0 {
		return len(pat) > 0
	}
	if len(pat) == 0 {
		return false
	}
	if pat[0] == "**" {
		return mayContain(pat[1:], dir) || (!strings.HasPrefix(dir[0], ".") && mayContain(pat, dir[1:]))
	}
	return segMatch(pat[0], dir[0]) && mayContain(pat[1:], dir[1:])
}

func (g glob) match(rel string) bool {
	name := strings.Split(rel, "/")
	for _, p := range g {
		if matchSegs(p, name) {
			return true
		}
	}
	return false
}

func (g glob) descend(rel string) bool {
	dir := strings.Split(rel, "/")
	for _, p := range g {
		if mayContain(p, dir) {
			return true
		}
	}
	return false
}

// files returns the regular files under root matching g, in lexical order,
// and the matching paths that were refused because they are symlinks.
func (g glob) files(root safefs.Root) (files, symlinks []string, err error) {
	err = root.WalkFiles(".", func(rel string, info fs.FileInfo) error {
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			if g.match(rel) || g.descend(rel) {
				symlinks = append(symlinks, rel)
			}
		case info.IsDir():
			if !g.descend(rel) {
				return safefs.SkipDir
			}
		case info.Mode().IsRegular():
			if g.match(rel) {
				files = append(files, rel)
			}
		}
		return nil
	})
	return files, symlinks, err
}

type globCountConfig struct {
	Glob string `json:"glob"`
	Min  *int   `json:"min,omitempty"`
	Max  *int   `json:"max,omitempty"`
	In   string `json:"in,omitempty"`

	g glob
}

func globCount() *lux.AssertionPlugin {
	return define("glob-count",
		"Passes when the number of regular files matching glob (\"**\" for any depth, {a,b} alternatives) is within min and max. Symlinks are neither followed nor counted.",
		func(c *globCountConfig, p *lux.Problems) {
			g, err := compileGlob(c.Glob)
			if err != nil {
				p.AddFix("glob", err.Error(), "give a slash-separated pattern relative to the workspace, such as \"src/**/*.go\"")
			}
			c.g = g
			bounds{c.Min, c.Max}.validate("min", "max", true, p)
			checkIn(&c.In, p)
		},
		func(_ context.Context, c *globCountConfig, run *lux.Run) (lux.Result, error) {
			root, err := rootOf(run, c.In)
			if err != nil {
				return lux.Result{}, fmt.Errorf("assertion: glob-count: %w", err)
			}
			files, symlinks, err := c.g.files(root)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					files, err = nil, nil
				} else {
					return lux.Result{}, fmt.Errorf("assertion: glob-count: %w", err)
				}
			}
			b := bounds{c.Min, c.Max}
			ok, why := b.check(len(files))
			shown := files
			if len(shown) > 10 {
				shown = shown[:10]
			}
			detail := b.detail(map[string]any{"glob": c.Glob, "in": c.In, "count": len(files), "files": nonNil(shown)})
			if len(symlinks) > 0 {
				detail["skippedSymlinks"] = symlinks
			}
			comment := fmt.Sprintf("%s match %q: %s", plural(len(files), "file", "files"), c.Glob, why)
			if ok {
				return lux.Pass(comment, detail), nil
			}
			return lux.Fail(comment, detail), nil
		})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
