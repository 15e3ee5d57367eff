package labels_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux/labels"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/stats"
)

func graded(label bool, labelScore *float64, passed *bool, score *float64, outcomes ...record.AssertionOutcome) labels.Graded {
	return labels.Graded{
		Label:   labels.Label{Expected: labels.Expected{Passed: &label, Score: labelScore}},
		Grading: &record.Grading{Passed: passed, Score: score, Assertions: outcomes},
	}
}

// TestAgreeByHand: six case verdicts (label, grading):
// (P,P) (P,P) (F,P) (F,F) (P,F) (F,F), one ungraded run and one without a
// grading. TP 2, FP 1, FN 1, TN 2; agreement 4/6; FP rate 1/3, FN rate
// 1/3. Kappa: p_o = 4/6, p_e = ½·½ + ½·½ = ½, κ = (2/3 − ½)/½ = 1/3.
// Nominal alpha over 12 values (6 pass, 6 fail): the 2 disagreeing units
// add 2 ordered pairs each, D_o ∝ 4; D_e ∝ 12² − 6² − 6² = 72;
// α = 1 − 11·4/72 = 7/18.
// Scores (label, graded): (1, 0.8), (0, 0.5): MAE = (0.2 + 0.5)/2 = 0.35;
// interval alpha: observed Σ 2(a−b)² = 0.58, expected 2·4·1.89 − 2·2.3² =
// 4.54, α = 1 − 3·0.58/4.54.
func TestAgreeByHand(t *testing.T) {
	p, f := true, false
	one, zero, s08, s05 := 1.0, 0.0, 0.8, 0.5
	items := []labels.Graded{
		graded(true, &one, &p, &s08),
		graded(true, nil, &p, nil),
		graded(false, &zero, &p, &s05),
		graded(false, nil, &f, nil),
		graded(true, nil, &f, nil),
		graded(false, nil, &f, nil),
		graded(true, nil, nil, nil),
		{Label: labels.Label{Expected: labels.Expected{Passed: &p}}},
	}
	items[0].Label.Expected.Assertions = map[string]labels.AssertionLabel{"x": {Passed: true}}
	items[0].Grading.Assertions = []record.AssertionOutcome{{ID: "x", Error: "judge down"}}
	items[1].Label.Expected.Assertions = map[string]labels.AssertionLabel{"x": {Passed: false}}
	r := labels.Agree(items, stats.Config{Seed: 1, Resamples: 500})

	c := r.Case
	if diff := cmp.Diff(labels.Confusion{TP: 2, FP: 1, FN: 1, TN: 2}, c.Confusion); diff != "" {
		t.Errorf("confusion (-want +got):\n%s", diff)
	}
	if c.Labels != 8 || c.Abstained != 1 || c.Missing != 1 {
		t.Errorf("labels %d, abstained %d, missing %d; want 8, 1, 1", c.Labels, c.Abstained, c.Missing)
	}
	near(t, "agreement", c.Agreement, 4.0/6)
	near(t, "FP rate", c.FalsePositiveRate, 1.0/3)
	near(t, "FN rate", c.FalseNegativeRate, 1.0/3)
	near(t, "kappa", c.Kappa.Estimate, 1.0/3)
	near(t, "alpha", c.Alpha.Estimate, 7.0/18)
	if c.Kappa.Method != string(stats.PercentileBootstrap) || c.Kappa.Units != 6 || c.Kappa.Resamples != 500 {
		t.Errorf("kappa interval: %+v", c.Kappa)
	}
	if *c.Kappa.Lower > 1.0/3 || *c.Kappa.Upper < 1.0/3 {
		t.Errorf("kappa interval [%v, %v] does not bracket 1/3", *c.Kappa.Lower, *c.Kappa.Upper)
	}
	if c.Score == nil || c.Score.N != 2 {
		t.Fatalf("score: %+v", c.Score)
	}
	mae := c.Score.MAE
	near(t, "score MAE", &mae, 0.35)
	near(t, "score alpha", c.Score.Alpha.Estimate, 1-3*0.58/4.54)

	if len(r.Assertions) != 1 {
		t.Fatalf("assertions: %+v", r.Assertions)
	}
	x := r.Assertions[0]
	if x.Subject != "x" || x.Labels != 2 || x.Abstained != 1 || x.Missing != 1 || x.N() != 0 {
		t.Errorf("assertion x: %+v", x)
	}
	if x.Agreement != nil || x.Kappa.Estimate != nil || x.Kappa.Undefined == "" {
		t.Errorf("assertion x without compared verdicts has no agreement: %+v", x)
	}
}

func near(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: none, want %v", what, want)
		return
	}
	if math.Abs(*got-want) > 1e-9 {
		t.Errorf("%s = %v, want %v", what, *got, want)
	}
}

// TestAnnotatorAgreement: three runs labelled by two or three people.
// Run a: pass, pass; run b: fail, fail, pass; run c: fail, fail; run d
// has one label and is not pairable. Pooled values: 3 pass, 4 fail
// (n = 7). Disagreement: only b, with 2·1·2 = 4 ordered pass/fail pairs
// over m_b − 1 = 2, so D_o ∝ 2; D_e ∝ 7² − 3² − 4² = 24;
// α = 1 − 6·2/24 = 0.5.
func TestAnnotatorAgreement(t *testing.T) {
	mk := func(run string, p bool) labels.Label {
		return labels.Label{Run: run, Expected: labels.Expected{Passed: &p}}
	}
	ls := []labels.Label{mk("a", true), mk("a", true), mk("b", false), mk("b", false), mk("b", true),
		mk("c", false), mk("c", false), mk("d", true)}
	c, ok := labels.AnnotatorAgreement(ls, stats.Config{Seed: 1})
	if !ok {
		t.Fatal("no annotator agreement")
	}
	near(t, "alpha", c.Estimate, 0.5)
	if c.Units != 3 {
		t.Errorf("units = %d, want the 3 runs with two or more labels", c.Units)
	}
	if _, ok := labels.AnnotatorAgreement(ls[7:], stats.Config{}); ok {
		t.Error("one label per run gives no annotator agreement")
	}
}
