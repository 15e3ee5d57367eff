// Package glob matches slash-separated paths against glob patterns:
// path.Match segments, "**" for any number of directories, {a,b}
// alternatives. Names starting with a dot are matched only by a segment
// that starts with a dot, so "**" never enters .git by accident.
package glob

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/luxeval/lux/internal/safefs"
)

// maxGlobExpansions bounds the patterns one glob's braces expand to.
const maxGlobExpansions = 256

// Glob is a compiled glob: its brace expansions, each split in segments.
type Glob [][]string

// Compile parses a slash-separated glob: segments use path.Match syntax
// (*, ?, [...], \ escapes), a "**" segment matches any number of
// directories, and {a,b} alternatives expand. Names starting with a dot are
// matched only by a segment that starts with a dot.
func Compile(pattern string) (Glob, error) {
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
	var g Glob
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

// Match reports whether the slash-separated path rel matches.
func (g Glob) Match(rel string) bool {
	name := strings.Split(rel, "/")
	for _, p := range g {
		if matchSegs(p, name) {
			return true
		}
	}
	return false
}

// Descend reports whether a file below the directory rel could match.
func (g Glob) Descend(rel string) bool {
	dir := strings.Split(rel, "/")
	for _, p := range g {
		if mayContain(p, dir) {
			return true
		}
	}
	return false
}

// Files returns the regular files under root matching g, in lexical order,
// and the matching paths that were refused because they are symlinks.
func (g Glob) Files(root safefs.Root) (files, symlinks []string, err error) {
	err = root.WalkFiles(".", func(rel string, info fs.FileInfo) error {
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			if g.Match(rel) || g.Descend(rel) {
				symlinks = append(symlinks, rel)
			}
		case info.IsDir():
			if !g.Descend(rel) {
				return safefs.SkipDir
			}
		case info.Mode().IsRegular():
			if g.Match(rel) {
				files = append(files, rel)
			}
		}
		return nil
	})
	return files, symlinks, err
}
