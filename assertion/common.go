package assertion

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/re2"
	"github.com/luxeval/lux/internal/safefs"
)

// The roots a file assertion's path is relative to (its "in" field).
const (
	InWorkspace = "workspace" // the agent's workspace, Run.Workspace (the default)
	InRun       = "run"       // the run directory, Run.Dir
)

// checkIn validates an "in" field and fills its default.
func checkIn(in *string, p *lux.Problems) {
	switch *in {
	case "":
		*in = InWorkspace
	case InWorkspace, InRun:
	default:
		p.AddFix("in", fmt.Sprintf("must be %q or %q, got %q", InWorkspace, InRun, *in),
			"leave it out for the workspace")
	}
}

// rootOf returns the root a path is resolved in.
func rootOf(run *lux.Run, in string) (safefs.Root, error) {
	if in == InRun {
		if run.Dir == "" {
			return safefs.Root{}, errors.New("the run has no run directory")
		}
		return safefs.Root{Dir: run.Dir, Name: "run directory"}, nil
	}
	if run.Workspace == "" {
		return safefs.Root{}, errors.New("the run has no workspace")
	}
	return safefs.Root{Dir: run.Workspace, Name: "workspace"}, nil
}

// checkPath validates a path field lexically: it must be relative and stay
// inside its root (in, already checked). An empty path is reported as
// missing.
func checkPath(field, value, in string, p *lux.Problems) {
	fix := "give a path relative to the workspace, or to the run directory with \"in\": \"run\""
	if value == "" {
		p.AddFix(field, "required", fix)
		return
	}
	name := "workspace"
	if in == InRun {
		name = "run directory"
	}
	if _, err := (safefs.Root{Name: name}).Clean(value); err != nil {
		problem := err.Error()
		var e *safefs.Error
		if errors.As(err, &e) {
			problem = fmt.Sprintf("%q %s", value, e.Problem)
		}
		p.AddFix(field, problem, fix)
	}
}

// refused reports whether err is about the evidence rather than about the
// grader: a path that is missing, goes through a symlink, escapes its root,
// is not a regular file, or is too large. Those fail the check with err as
// the comment; any other error means the run could not be graded.
func refused(err error) bool {
	return errors.Is(err, fs.ErrNotExist) ||
		errors.Is(err, safefs.ErrSymlink) ||
		errors.Is(err, safefs.ErrUnsafePath) ||
		errors.Is(err, safefs.ErrNotRegular) ||
		errors.Is(err, safefs.ErrNotDir) ||
		errors.Is(err, safefs.ErrTooLarge) ||
		errors.Is(err, safefs.ErrChanged)
}

// readFile reads a file of the run for an assertion. A refused path is a
// failing result (res non-nil); other problems are errors.
func readFile(typ string, run *lux.Run, in, path string, limit int64) (data []byte, res *lux.Result, err error) {
	root, err := rootOf(run, in)
	if err != nil {
		return nil, nil, fmt.Errorf("assertion: %s: %w", typ, err)
	}
	data, err = root.ReadFile(path, limit)
	if err == nil {
		return data, nil, nil
	}
	if refused(err) {
		r := refusedResult(root, path, in, err)
		return nil, &r, nil
	}
	return nil, nil, fmt.Errorf("assertion: %s: %w", typ, err)
}

// refusedResult is the failing result for a refused path.
func refusedResult(root safefs.Root, path, in string, err error) lux.Result {
	comment := err.Error()
	if !errors.Is(err, safefs.ErrUnsafePath) {
		comment += " (in the " + root.Name + ")"
	}
	return Fail(comment, map[string]any{"path": path, "in": in, "refused": refusal(err)})
}

// refusal names why a path was refused, for a result's detail.
func refusal(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "missing"
	case errors.Is(err, safefs.ErrSymlink):
		return "symlink"
	case errors.Is(err, safefs.ErrUnsafePath):
		return "unsafe-path"
	case errors.Is(err, safefs.ErrNotRegular):
		return "not-regular"
	case errors.Is(err, safefs.ErrNotDir):
		return "not-directory"
	case errors.Is(err, safefs.ErrTooLarge):
		return "too-large"
	case errors.Is(err, safefs.ErrChanged):
		return "changed"
	}
	return "error"
}

// compileRegexp compiles a Go (RE2) pattern with the flags i, m and s.
func compileRegexp(pattern, flags string) (*regexp.Regexp, error) {
	prefix, err := flagPrefix(flags)
	if err != nil {
		return nil, err
	}
	return regexp.Compile(prefix + pattern)
}

func flagPrefix(flags string) (string, error) {
	if flags == "" {
		return "", nil
	}
	seen := map[rune]bool{}
	for _, f := range flags {
		switch f {
		case 'i', 'm', 's':
			seen[f] = true
		default:
			return "", fmt.Errorf("unknown flag %q in %q", f, flags)
		}
	}
	var b strings.Builder
	b.WriteString("(?")
	for _, f := range "ims" {
		if seen[f] {
			b.WriteRune(f)
		}
	}
	b.WriteString(")")
	return b.String(), nil
}

// checkRegexp validates the pattern and flags fields and returns the
// compiled regular expression (nil when invalid).
func checkRegexp(pattern, flags string, p *lux.Problems) *regexp.Regexp {
	if _, err := flagPrefix(flags); err != nil {
		p.AddFix("flags", err.Error(), "use any of i, m, s: i ignores case, m makes ^ and $ match at line breaks, s lets . match a newline")
		return nil
	}
	if pattern == "" {
		p.AddFix("pattern", "required", "give a Go regular expression, in RE2 syntax")
		return nil
	}
	re, err := compileRegexp(pattern, flags)
	if err != nil {
		p.AddFix("pattern", re2.Problem(err),
			"use Go RE2 syntax, without backreferences or lookaround")
		return nil
	}
	return re
}

// clip shortens s to at most n runes for a comment or detail.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
