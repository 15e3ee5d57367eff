package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux/internal/golden"
	luxlabels "github.com/luxeval/lux/labels"
)

// hostileAnnotator is an annotator's name with markup and a control
// character; label feedback gets multiLine (markup, an escape).
const hostileAnnotator = "<i onmouseover=window.__pwned=5>eve</i>\x1b[31m"

// labelledRun writes a failed run (assertion hello passed, says-hi
// failed) and a dataset of three labels of it under root: one that
// disagrees with the grading on the case and on says-hi, one that agrees,
// and one of another run id, which is shown but not compared.
func labelledRun(t testing.TB) (root, dir string, set *LabelSet) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "runs")
	dir, _, _ = writeRun(t, root, "", fixtureRun{caseID: "hello", rep: 1, passed: ptr(false), durationMs: 1200, tokens: 100}, t0)
	path := filepath.Join(root, "labels.json")
	mk := func(id, annotator string, passed bool, asserts map[string]luxlabels.AssertionLabel) luxlabels.Label {
		l, err := luxlabels.ForRun(path, dir, annotator)
		if err != nil {
			t.Fatal(err)
		}
		l.ID, l.LabeledAt = id, t0
		l.Expected = luxlabels.Expected{Passed: ptr(passed), Assertions: asserts}
		return l
	}
	disagree := mk("a-eve", hostileAnnotator, true, map[string]luxlabels.AssertionLabel{
		"hello":   {Passed: true},
		"says-hi": {Passed: true, Score: ptr(0.9)},
		"ghost":   {Passed: false},
	})
	disagree.Feedback = multiLine
	agree := mk("b-bob", "bob", false, map[string]luxlabels.AssertionLabel{"says-hi": {Passed: false}})
	other := mk("c-old", "carol", true, map[string]luxlabels.AssertionLabel{"says-hi": {Passed: true}})
	other.RunID = "hello/an-earlier-run"
	if err := luxlabels.Save(path, &luxlabels.Dataset{SchemaVersion: luxlabels.SchemaVersion, Labels: []luxlabels.Label{disagree, agree, other}}); err != nil {
		t.Fatal(err)
	}
	set, err := LoadLabels(path)
	if err != nil {
		t.Fatal(err)
	}
	return root, dir, set
}

// A run page shows each label of its run beside the grading: the case's
// verdict and each assertion's, a disagreement marked, a label of
// another run shown and not compared.
func TestRunPageLabels(t *testing.T) {
	root, dir, set := labelledRun(t)
	p, err := Run(dir, Options{Labels: set})
	if err != nil {
		t.Fatal(err)
	}
	type caseView struct {
		ID, Annotator, Case string
		Disagrees           bool
		Stale               bool
		Unmatched           []string
	}
	var gotCase []caseView
	for _, l := range p.Labels {
		gotCase = append(gotCase, caseView{l.ID, l.Annotator, l.Case, l.CaseDisagrees, l.Stale != "", l.Unmatched})
	}
	wantCase := []caseView{
		{"a-eve", hostileAnnotator, "pass", true, false, []string{"ghost"}},
		{"b-bob", "bob", "fail", false, false, nil},
		{"c-old", "carol", "pass", false, true, nil},
	}
	if d := cmp.Diff(wantCase, gotCase); d != "" {
		t.Errorf("case labels (-want +got):\n%s", d)
	}
	cells := map[string][]AssertionLabelCell{}
	for _, a := range p.Assertions {
		cells[a.ID] = a.Labels
	}
	wantCells := map[string][]AssertionLabelCell{
		"hello": {{Annotator: hostileAnnotator, Verdict: "pass"}},
		"says-hi": {
			{Annotator: hostileAnnotator, Verdict: "pass", Score: "0.900", Disagrees: true},
			{Annotator: "bob", Verdict: "fail"},
			{Annotator: "carol", Verdict: "pass", NotCompared: true}, // another run's label: not compared
		},
	}
	if d := cmp.Diff(wantCells, cells); d != "" {
		t.Errorf("assertion labels (-want +got):\n%s", d)
	}
	page := render(t, p)
	golden.Equal(t, filepath.Join("testdata", "run-labels.html"), normalize(page, root))
	s := string(page)
	for _, bad := range []string{"<i onmouseover", "<script>window.__pwned", "\x1b"} {
		if strings.Contains(s, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	for _, want := range []string{"&lt;i onmouseover=window.__pwned=5&gt;eve&lt;/i&gt;", "&lt;script&gt;window.__pwned=1&lt;/script&gt;", `label-row disagree`, `status pass disagree`} {
		if !strings.Contains(s, want) {
			t.Errorf("the page does not hold %q", want)
		}
	}
}

// Without labels, or with none of this run, the run page is as before.
func TestRunPageWithoutItsLabels(t *testing.T) {
	_, _, set := labelledRun(t)
	other, _, _ := writeRun(t, filepath.Join(t.TempDir(), "runs"), "", fixtureRun{caseID: "other", rep: 1, passed: ptr(true)}, t0)
	with, err := Run(other, Options{Labels: set})
	if err != nil {
		t.Fatal(err)
	}
	without, err := Run(other, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(render(t, without)), string(render(t, with))); d != "" {
		t.Errorf("a run with no labels renders differently with a dataset (-without +with):\n%s", d)
	}
}
