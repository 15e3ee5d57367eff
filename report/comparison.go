package report

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/luxeval/lux/compare"
)

// ComparisonPage is a suite comparison: its verdict and gate in one
// sentence, a forest plot of the paired effects, the cases whose verdict
// flipped and the identity mismatches.
type ComparisonPage struct {
	A, B     SideInfo
	Verdict  string
	Sentence string
	GateFail bool
	Reasons  []string
	Gate     []string // why the gate failed
	Settings string
	Forest   *ForestPlot
	// CaseForest plots the pass rate of every changed case (nil: none
	// changed); CaseForestNote says how many were left out.
	CaseForest     *ForestPlot
	CaseForestNote string
	PassToFail     []string
	FailToPass     []string
	Flips          string
	Mismatches     []MismatchRow
	Varied         []string
	OnlyA, OnlyB   []string
	Warnings       []string
	// Cases are the paired cases with their runs; FlipList the cases
	// whose verdict changed, the surest change first (the per-case test's
	// p-value), each with its paired view.
	Cases    []ComparedCase
	FlipList []FlipRow
	// Pairs are the paired views a static page embeds; PairsNote says
	// which were left out.
	Pairs     []*PairPage
	PairsNote string
	// RowLimit is how many rows of the paired cases the page lays out
	// before "show all".
	RowLimit int
}

// SideInfo is one side of a comparison.
type SideInfo struct {
	Name, Dir, Href, SuiteID, Status, Summary string
}

// MismatchRow is one identity field that differs, with both values.
type MismatchRow struct {
	CaseID, Field, A, B, Note, Diff string
	Varied                          bool
}

// Comparison builds the page of a suite comparison made by package
// compare, as it is: no statistic is computed again. When the suites'
// directories are at hand it embeds, with the default Options, the
// paired views of the cases that changed (ComparisonOf chooses the
// bounds).
func Comparison(c *compare.SuiteComparison) *ComparisonPage {
	return comparisonPage(c, nil, Options{}.withDefaults())
}

// ComparisonOf is Comparison within the bounds of opts.
func ComparisonOf(c *compare.SuiteComparison, opts Options) *ComparisonPage {
	return comparisonPage(c, nil, opts.withDefaults())
}

func comparisonPage(c *compare.SuiteComparison, ln links, o Options) *ComparisonPage {
	p := &ComparisonPage{
		A: sideInfo("A", c.A, ln), B: sideInfo("B", c.B, ln),
		Verdict: string(c.Verdict), GateFail: c.Gate.Failed, Reasons: c.Reasons, Gate: c.Gate.Reasons,
		OnlyA: c.OnlyA, OnlyB: c.OnlyB, RowLimit: o.MaxRows,
		Forest: effectsForest(c.Effects),
	}
	p.Sentence = sentence(c)
	st := c.Settings
	p.Settings = fmt.Sprintf("%s intervals at %g%%, gate on %s, pass-rate tolerance %g", st.Method, 100*st.Level,
		strings.Join(labels(st.GateMetrics), ", "), st.PassRateTolerance)
	if st.Strict {
		p.Settings += ", strict"
	}
	if len(st.Vary) > 0 {
		var v []string
		for _, f := range st.Vary {
			v = append(v, string(f))
		}
		p.Settings += ", varying " + strings.Join(v, ", ")
	}
	var left int
	p.CaseForest, left = casesForest(c.Cases)
	if left > 0 {
		p.CaseForestNote = fmt.Sprintf("%d more changed cases are not plotted", left)
	}
	for _, cd := range c.Cases {
		switch {
		case cd.Passed.A && !cd.Passed.B:
			p.PassToFail = append(p.PassToFail, cd.CaseID)
		case !cd.Passed.A && cd.Passed.B:
			p.FailToPass = append(p.FailToPass, cd.CaseID)
		}
	}
	comparedCases(p, c, o, ln)
	p.Flips = fmt.Sprintf("%d pass → fail, %d fail → pass; McNemar's exact p = %s", c.Flips.PassToFail, c.Flips.FailToPass, strconv.FormatFloat(c.Flips.PValue, 'g', 3, 64))
	for _, cm := range c.Mismatches {
		for _, m := range cm.Mismatches {
			p.Mismatches = append(p.Mismatches, mismatchRow(cm.CaseID, m))
		}
	}
	for _, f := range c.Varied {
		p.Varied = append(p.Varied, fmt.Sprintf("%s differed in %d %s (varied on purpose)", f.Field, f.Cases, plural(f.Cases, "case", "cases")))
	}
	for _, w := range c.Warnings {
		p.Warnings = append(p.Warnings, w.Message)
	}
	for _, w := range c.EffectWarnings {
		p.Warnings = append(p.Warnings, strings.Join(labels(w.Metrics), ", ")+": "+w.Message)
	}
	return p
}

func sideInfo(name string, s compare.SuiteInfo, ln links) SideInfo {
	si := SideInfo{Name: name, Dir: s.Dir, SuiteID: s.SuiteID, Status: string(s.Status),
		Summary: fmt.Sprintf("%d cases, %d runs: %d passed, %d failed, %d without a verdict, %d pending; pass rate %s",
			s.Cases, s.Runs, s.Passed, s.Failed, s.Ungraded, s.Pending, pct(s.PassRate))}
	if ln != nil && s.Dir != "" {
		si.Href = ln.suite(s.Dir)
	}
	return si
}

// sentence is the verdict and the gate in one sentence.
func sentence(c *compare.SuiteComparison) string {
	gate := "the gate passes"
	if c.Gate.Failed {
		gate = "the gate fails"
	}
	var what string
	switch c.Verdict {
	case compare.Better:
		what = "B is better than A"
	case compare.Worse:
		what = "B is worse than A"
	case compare.NoDifference:
		what = "No detectable difference between A and B"
	case compare.NotComparable:
		what = "A and B are not comparable"
	default:
		what = "Verdict: " + string(c.Verdict)
	}
	s := what
	if len(c.Reasons) > 0 {
		s += " (" + c.Reasons[0]
		if len(c.Reasons) > 1 {
			s += fmt.Sprintf("; and %d more", len(c.Reasons)-1)
		}
		s += ")"
	}
	return s + "; " + gate + "."
}

func mismatchRow(caseID string, m compare.Mismatch) MismatchRow {
	field := string(m.Field)
	if m.Within != "" {
		field += " (within " + strings.ToUpper(m.Within) + ")"
	}
	return MismatchRow{CaseID: caseID, Field: field, A: valueText(m.A), B: valueText(m.B), Note: m.Note, Diff: clip(m.Diff, 8192), Varied: m.Varied}
}

func valueText(v any) string {
	if s, ok := v.(string); ok {
		return clip(s, 2048)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b), 2048)
}

func labels(metrics []string) []string {
	out := make([]string, len(metrics))
	for i, m := range metrics {
		out[i] = compare.MetricLabel(m)
	}
	return out
}
