package report

import (
	"bytes"
	"context"
	"html/template"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/internal/golden"
	"github.com/luxeval/lux/record"
)

// pages renders the three page kinds of one fixture: a suite, one of its
// runs, and its comparison with a baseline.
type pages struct {
	root, a, b                       string
	suite, run, compared, experiment []byte
	pair                             []byte // a passing run of A against a failing one of B
}

func renderFixture(t testing.TB) pages {
	t.Helper()
	root := filepath.Join(t.TempDir(), "runs")
	a, b := pairSuites(t, root, 12, 2, map[int]bool{1: true, 4: true, 7: true, 9: true})
	var p pages
	p.root, p.a, p.b = root, a, b
	sp, err := Suite(context.Background(), b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p.suite = render(t, sp)
	rp, err := Run(sp.Runs[0].Dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p.run = render(t, rp)
	c, err := compare.Suites(context.Background(), a, b, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cp := Comparison(c)
	p.compared = render(t, cp)
	pp, err := Pair(cp.Pairs[0].A.Dir, cp.Pairs[0].B.Dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p.pair = render(t, pp)
	ep := Experiment(experimentFixture(c))
	ep.EmbedPairs(Options{MaxPairs: 2})
	p.experiment = render(t, ep)
	return p
}

// experimentFixture is an experiment's report whose candidates' effects
// are those of a real suite comparison.
func experimentFixture(c *compare.SuiteComparison) ExperimentReport {
	return ExperimentReport{
		Dir: "$LEDGER", ExperimentID: "2025-03-04T05-06-07-000Z-house-style", Status: "passed", Outcome: "retain",
		Sentence: "retain the baseline: no candidate passed every gate", Verdicts: []string{"reject variant-y " + hostile + ": pass rate fell"},
		Gates: []ExperimentGate{
			{Candidate: "variant-x", Text: "pass rate effect (default, validation) +0 [-0.1, +0.1] needs ≥ 0: passed", Passed: true},
			{Candidate: "variant-y " + hostile, Text: "pass rate effect (default, validation) -0.33 [-1.28, +0.62] needs ≥ 0: failed"},
		},
		Effects: []EffectGroup{
			{Candidate: "variant-x", Profile: "default", Split: "validation", Effects: c.Effects[:2]},
			{Candidate: "variant-y " + hostile, Profile: "default", Split: "validation", Effects: c.Effects},
		},
		Spend:     []SpendRow{{"runs", "48", "100"}, {"cost", "$0.4800", "$100.00"}},
		Reproduce: []string{"lux view '$LEDGER'"},
		Baseline:  "baseline",
		Runs:      append(experimentRuns(c.A.Dir, "baseline"), experimentRuns(c.B.Dir, "variant-y "+hostile)...),
	}
}

// experimentRuns are the runs of the suite in dir as an experiment's
// units of candidate.
func experimentRuns(dir, candidate string) []ExperimentRun {
	s, err := record.ReadSuite(dir)
	if err != nil {
		panic(err)
	}
	var out []ExperimentRun
	for i, it := range s.Manifest.Items {
		out = append(out, ExperimentRun{Candidate: candidate, Profile: "default", Split: "validation", CaseID: it.CaseID,
			Repetition: it.Repetition, Verdict: it.Verdict(), Dir: s.RunDir(i)})
	}
	return out
}

func render(t testing.TB, page any) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, page); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// normalize replaces the fixture's temporary root so the golden files
// hold the same bytes on every machine, and the embedded style sheet and
// script (checked in the browser, not byte by byte) by placeholders.
func normalize(b []byte, root string) []byte {
	b = bytes.ReplaceAll(b, []byte(root), []byte("$ROOT"))
	b = bytes.Replace(b, []byte(styleCSS), []byte("/* style.css */"), 1)
	b = bytes.Replace(b, []byte(appJS), []byte("/* app.js */"), 1)
	return bytes.Replace(b, []byte(template.HTMLEscapeString(contentSecurityPolicy)), []byte("$CSP"), 1)
}

func TestGoldenPages(t *testing.T) {
	p := renderFixture(t)
	for name, got := range map[string][]byte{"suite.html": p.suite, "run.html": p.run, "comparison.html": p.compared, "experiment.html": p.experiment, "pair.html": p.pair} {
		t.Run(name, func(t *testing.T) {
			got := normalize(got, p.root)
			golden.Equal(t, filepath.Join("testdata", name), got)
		})
	}
}

// Every page loads nothing: one script (its own), no element that fetches,
// no URL but the SVG namespace; and the hostile markup of the fixture
// appears only escaped.
func TestPagesAreSelfContained(t *testing.T) {
	p := renderFixture(t)
	fetching := regexp.MustCompile(`(?i)<(img|link|iframe|object|embed|audio|video|source|base)\b|<script\b[^>]*\bsrc`)
	url := regexp.MustCompile(`(?i)\b(https?:)?//[a-z0-9]`)
	for name, b := range map[string][]byte{"suite": p.suite, "run": p.run, "comparison": p.compared, "experiment": p.experiment, "pair": p.pair} {
		s := string(b)
		if n := strings.Count(s, "<script"); n != 1 {
			t.Errorf("%s page has %d <script> elements, want its own one", name, n)
		}
		if m := fetching.FindString(s); m != "" {
			t.Errorf("%s page has an element that fetches: %q", name, m)
		}
		if m := url.FindString(strings.ReplaceAll(s, `xmlns="http://www.w3.org/2000/svg"`, "")); m != "" {
			t.Errorf("%s page names a URL: %q", name, m)
		}
		if strings.Contains(s, hostile) || strings.Contains(s, "<script>window") || strings.Contains(s, "<img src=x onerror=window") || strings.Contains(s, "<b onmouseover") {
			t.Errorf("%s page holds the hostile markup unescaped", name)
		}
		if !strings.Contains(s, "&lt;script&gt;window.__pwned=1") {
			t.Errorf("%s page does not show the hostile markup as text", name)
		}
		if i := strings.IndexFunc(s, isControl); i >= 0 {
			t.Errorf("%s page holds the control character %q at byte %d", name, s[i], i)
		}
	}
}

// The suite page counts runs by the project's verdicts: only pass and fail
// are graded, errors and cancelled runs are counted apart and left out of
// the pass rate.
func TestSuiteVerdicts(t *testing.T) {
	root := filepath.Join(t.TempDir(), "runs")
	dir := writeSuite(t, root, t0, []fixtureRun{
		{caseID: "a", rep: 1, passed: ptr(true), durationMs: 10},
		{caseID: "a", rep: 2, passed: ptr(false), durationMs: 10},
		{caseID: "b", rep: 1, passed: nil, durationMs: 10}, // an assertion could not grade
		{caseID: "b", rep: 2, passed: nil, exit: lux.ExitCancelled, durationMs: 10},
	})
	p, err := Suite(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var cells [][]string
	var verdicts []string
	for _, c := range p.Cases {
		var row []string
		for _, r := range c.Runs {
			row = append(row, r.Verdict)
		}
		cells = append(cells, row)
		verdicts = append(verdicts, c.Verdict)
	}
	if d := cmp.Diff([][]string{{"pass", "fail"}, {"error", "cancelled"}}, cells); d != "" {
		t.Errorf("strip cells (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"flaky", "error"}, verdicts); d != "" {
		t.Errorf("case verdicts (-want +got):\n%s", d)
	}
	if want := "50.0% (1 passed of 2 graded runs)"; p.PassRate != want {
		t.Errorf("pass rate %q, want %q", p.PassRate, want)
	}
	facts := map[string]string{}
	for _, f := range p.Totals {
		facts[f.Label] = f.Value
	}
	if !strings.HasPrefix(facts["errored"], "1 ") || facts["cancelled"] != "1" || !strings.HasPrefix(facts["graded"], "2 ") {
		t.Errorf("totals %v", facts)
	}
}

// A case whose identity differs is listed with the field and both values.
func TestComparisonMismatches(t *testing.T) {
	root := filepath.Join(t.TempDir(), "runs")
	runs := func(hash string) []fixtureRun {
		return []fixtureRun{
			{caseID: "same", rep: 1, passed: ptr(true), durationMs: 10},
			{caseID: "edited", rep: 1, passed: ptr(true), durationMs: 10, caseHash: hash},
		}
	}
	a := writeSuite(t, root, t0, runs("hash-before"))
	b := writeSuite(t, root, t0.Add(time.Hour), runs("hash-after"))
	c, err := compare.Suites(context.Background(), a, b, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := Comparison(c)
	if len(p.Mismatches) == 0 {
		t.Fatal("no mismatch listed")
	}
	m := p.Mismatches[0]
	if m.CaseID != "edited" || m.Field != "caseHash" || m.A != "hash-before" || m.B != "hash-after" {
		t.Errorf("mismatch %+v, want edited's caseHash hash-before → hash-after", m)
	}
	html := string(render(t, p))
	for _, want := range []string{"A and B are not comparable", "<code>hash-before</code>", "<code>hash-after</code>"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
}

// Effect caveats are said once each, with the metrics they concern; a
// metric no case changed is named in one line and gets no plot row.
func TestComparisonQuietStatistics(t *testing.T) {
	p := renderFixture(t)
	c, err := compare.Suites(context.Background(), p.a, p.b, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cp := Comparison(c)
	seen := map[string]bool{}
	for _, w := range cp.Warnings {
		if seen[w] {
			t.Errorf("warning said twice: %q", w)
		}
		seen[w] = true
	}
	if got, want := len(cp.Warnings), len(c.Warnings)+len(c.EffectWarnings); got != want {
		t.Errorf("%d warnings on the page, want %d (comparison) + %d (effects, each once)", got, len(c.Warnings), len(c.EffectWarnings))
	}
	rows := map[string]bool{}
	for _, r := range cp.Forest.Rows {
		rows[r.Label] = true
	}
	var same int
	for _, e := range c.Effects {
		l := compare.MetricLabel(e.Metric)
		switch {
		case e.NoChange:
			same++
			if rows[l] {
				t.Errorf("%s: no case changed, yet it has a plot row", l)
			}
			if !strings.Contains(cp.Forest.NoChange, l) {
				t.Errorf("the no-change line %q does not name %s", cp.Forest.NoChange, l)
			}
		case !rows[l]:
			t.Errorf("%s changed and has no plot row", l)
		}
	}
	if same == 0 {
		t.Fatal("the fixture has no metric without change; the test shows nothing")
	}
	html := string(p.compared)
	if n := strings.Count(html, "no-change"); n != 1 {
		t.Errorf("the no-change line appears %d times, want once", n)
	}
}

// A flaky case's row leads to the paired view of a repetition that passed
// and one that did not; a static page embeds it.
func TestSuiteFlakyPair(t *testing.T) {
	root := filepath.Join(t.TempDir(), "runs")
	dir := writeSuite(t, root, t0, []fixtureRun{
		{caseID: "flaky", rep: 1, passed: ptr(true), durationMs: 10},
		{caseID: "flaky", rep: 2, passed: ptr(false), durationMs: 10, extraTool: true},
		{caseID: "steady", rep: 1, passed: ptr(true), durationMs: 10},
	})
	p, err := Suite(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Pairs) != 1 || p.Cases[0].PairHref != "#pair-1" || p.Cases[1].PairHref != "" {
		t.Fatalf("%d pairs, row links %q and %q; want one pair, linked from the flaky case", len(p.Pairs), p.Cases[0].PairHref, p.Cases[1].PairHref)
	}
	pp := p.Pairs[0]
	if pp.A.Name != "repetition 1" || pp.B.Name != "repetition 2" || pp.A.Verdict != "pass" || pp.B.Verdict != "fail" {
		t.Errorf("pair %s (%s) against %s (%s), want repetition 1 (pass) against repetition 2 (fail)", pp.A.Name, pp.A.Verdict, pp.B.Name, pp.B.Verdict)
	}
	if pp.Diverged == 0 || pp.Steps[pp.Diverged-1].A != nil || pp.Steps[pp.Diverged-1].B.Label != "tool call Bash" {
		t.Errorf("first differing step %d, want the Bash call repetition 2 inserted", pp.Diverged)
	}
	if !strings.Contains(string(render(t, p)), `id="pair-1"`) {
		t.Error("the page does not hold the paired view")
	}
}

// Alignment keeps the steps after an inserted one on the same rows.
func TestAlignSteps(t *testing.T) {
	e := func(kind, label string) Entry { return Entry{Kind: kind, Label: label} }
	a := []Entry{e("message", "agent"), e("tool", "tool call Read"), e("tool", "tool call Write"), e("done", "done")}
	b := []Entry{e("message", "agent"), e("tool", "tool call Bash"), e("tool", "tool call Read"), e("tool", "tool call Write"), e("done", "done")}
	var got []string
	for _, s := range alignSteps(a, b) {
		row := "-"
		if s.A != nil {
			row = s.A.Label
		}
		row += "|"
		if s.B != nil {
			row += s.B.Label
		} else {
			row += "-"
		}
		got = append(got, row)
	}
	want := []string{"agent|agent", "-|tool call Bash", "tool call Read|tool call Read", "tool call Write|tool call Write", "done|done"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("aligned rows (-want +got):\n%s", d)
	}
}
