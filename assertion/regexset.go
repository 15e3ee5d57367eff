package assertion

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/luxeval/lux"
)

// The modes of file-regex-set.
const (
	ModeAll  = "all"  // every pattern matches
	ModeAny  = "any"  // at least one pattern matches
	ModeNone = "none" // no pattern matches
)

// MaxRegexSetPatterns is how many patterns one file-regex-set may hold.
const MaxRegexSetPatterns = 50

type fileRegexSetConfig struct {
	Path     string   `json:"path"`
	Patterns []string `json:"patterns"`
	Mode     string   `json:"mode"`
	Flags    string   `json:"flags,omitempty"`
	In       string   `json:"in,omitempty"`

	res []*regexp.Regexp
}

func fileRegexSet() *lux.AssertionPlugin {
	return define("file-regex-set",
		"Passes when, of the Go regular expressions patterns (flags i, m, s), all, any or none (mode) match the file at path (at most 5 MiB).",
		func(c *fileRegexSetConfig, p *lux.Problems) {
			checkIn(&c.In, p)
			checkPath("path", c.Path, c.In, p)
			switch c.Mode {
			case ModeAll, ModeAny, ModeNone:
			case "":
				p.AddFix("mode", "required", fmt.Sprintf("say which patterns must match: %q, %q or %q", ModeAll, ModeAny, ModeNone))
			default:
				p.AddFix("mode", fmt.Sprintf("must be %q, %q or %q, got %q", ModeAll, ModeAny, ModeNone, c.Mode), "all: every pattern matches; any: one does; none: none does")
			}
			if len(c.Patterns) == 0 || len(c.Patterns) > MaxRegexSetPatterns {
				p.AddFix("patterns", fmt.Sprintf("must hold 1 to %d patterns, got %d", MaxRegexSetPatterns, len(c.Patterns)), "split a longer list over several assertions")
			}
			if _, err := flagPrefix(c.Flags); err != nil {
				checkRegexp("", c.Flags, p) // words the flags problem
				return
			}
			for i, pat := range c.Patterns {
				var sub lux.Problems
				c.res = append(c.res, checkRegexp(pat, c.Flags, &sub))
				for _, e := range lux.ProblemsOf(sub.Err(nil)) {
					if fe, ok := e.(*lux.FieldError); ok {
						p.AddFix(fmt.Sprintf("patterns[%d]", i), fe.Problem, fe.Fix)
					}
				}
			}
		},
		func(_ context.Context, c *fileRegexSetConfig, run *lux.Run) (lux.Result, error) {
			data, res, err := readFile("file-regex-set", run, c.In, c.Path, MaxRegexFileBytes)
			if res != nil || err != nil {
				return deref(res), err
			}
			matched := 0
			unmatched, hit := []string{}, []string{}
			for i, re := range c.res {
				if re.Match(data) {
					matched++
					hit = append(hit, c.Patterns[i])
				} else {
					unmatched = append(unmatched, c.Patterns[i])
				}
			}
			var ok bool
			switch c.Mode {
			case ModeAll:
				ok = matched == len(c.res)
			case ModeAny:
				ok = matched > 0
			case ModeNone:
				ok = matched == 0
			}
			detail := map[string]any{"path": c.Path, "in": c.In, "mode": c.Mode, "matched": matched, "total": len(c.res),
				"matchedPatterns": hit, "unmatchedPatterns": unmatched}
			comment := fmt.Sprintf("%d of %d patterns match %q; expected %s", matched, len(c.res), c.Path, c.Mode)
			if ok {
				return Pass(comment, detail), nil
			}
			if c.Mode == ModeNone {
				comment += fmt.Sprintf(" (matched: %s)", patternList(hit))
			} else {
				comment += fmt.Sprintf(" (unmatched: %s)", patternList(unmatched))
			}
			return Fail(comment, detail), nil
		})
}

// patternList names up to three patterns for a comment.
func patternList(ps []string) string {
	out := make([]string, 0, 4)
	for _, p := range ps[:min(len(ps), 3)] {
		out = append(out, "/"+clip(p, 60)+"/")
	}
	if len(ps) > 3 {
		out = append(out, fmt.Sprintf("and %d more", len(ps)-3))
	}
	return strings.Join(out, ", ")
}
