package record

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Suite references: where a suite is named (lux compare, report, view,
// luxtest's baseline), "latest" is the suite of the runs root that started
// last, and "label:NAME" the one that started last among those labelled
// NAME (SuiteManifest.Label). Anything else is a directory.
const (
	LatestRef   = "latest"
	LabelPrefix = "label:"
)

// IsSuiteRef reports whether ref is "latest" or "label:NAME" rather than a
// directory.
func IsSuiteRef(ref string) bool {
	return ref == LatestRef || strings.HasPrefix(ref, LabelPrefix)
}

// ResolveSuite returns the suite directory ref names under root: ref
// itself unless it is "latest" or "label:NAME" (see IsSuiteRef), which
// name the suite under root/.suites whose recorded start time is the
// newest, among all of them or among those with the label. A suite whose
// suite.json cannot be read is not considered. The error says what was
// searched when no suite matches, and names the candidates when two
// started at the same instant.
func ResolveSuite(root, ref string) (string, error) {
	if !IsSuiteRef(ref) {
		return ref, nil
	}
	label, byLabel := strings.CutPrefix(ref, LabelPrefix)
	if byLabel && strings.TrimSpace(label) == "" {
		return "", fmt.Errorf("record: %q names no label; write label:NAME", ref)
	}
	where := filepath.Join(root, SuitesDir)
	dirs, err := FindSuites(root)
	if err != nil {
		return "", err
	}
	var (
		best       []*Suite
		labels     []string
		unreadable int
	)
	for _, dir := range dirs {
		s, err := ReadSuite(dir)
		if err != nil {
			unreadable++
			continue
		}
		m := s.Manifest
		if m.Label != "" && !slices.Contains(labels, m.Label) {
			labels = append(labels, m.Label)
		}
		if byLabel && m.Label != label {
			continue
		}
		switch {
		case len(best) == 0 || m.StartedAt.After(best[0].Manifest.StartedAt):
			best = []*Suite{s}
		case m.StartedAt.Equal(best[0].Manifest.StartedAt):
			best = append(best, s)
		}
	}
	switch {
	case len(best) == 1:
		return best[0].Dir, nil
	case len(best) > 1:
		names := make([]string, len(best))
		for i, s := range best {
			names[i] = filepath.Base(s.Dir)
		}
		return "", fmt.Errorf("record: %q is ambiguous under %s: %s started at the same time (%s); name the suite directory instead",
			ref, where, strings.Join(names, " and "), best[0].Manifest.StartedAt.Format("2006-01-02T15:04:05.000Z07:00"))
	}
	var b strings.Builder
	if byLabel {
		fmt.Fprintf(&b, "record: no suite labelled %q under %s", label, where)
	} else {
		fmt.Fprintf(&b, "record: no suite under %s", where)
	}
	fmt.Fprintf(&b, " (%s searched", plural(len(dirs), "suite"))
	if unreadable > 0 {
		fmt.Fprintf(&b, ", %d unreadable", unreadable)
	}
	b.WriteString(")")
	if byLabel {
		if len(labels) > 0 {
			slices.Sort(labels)
			fmt.Fprintf(&b, "; the labels there are: %s", strings.Join(labels, ", "))
		} else if len(dirs) > 0 {
			b.WriteString("; none of them has a label (lux run -label NAME, luxtest's Suite.Label or LUX_LABEL give one)")
		}
	}
	if len(dirs) == 0 {
		b.WriteString("; is the runs root right?")
	}
	return "", errors.New(b.String())
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
