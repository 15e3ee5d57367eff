package experiment

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/labels"
	"github.com/luxeval/lux/record"
)

// scoreLabel turns one grading and its label into the unit's verdict
// (the case verdict agrees) and judge metrics.
func TestScoreLabel(t *testing.T) {
	yes, no := true, false
	f := func(v float64) *float64 { return &v }
	graded := func(passed *bool, score *float64, as ...record.AssertionOutcome) *record.Grading {
		return &record.Grading{Passed: passed, Score: score, Assertions: as}
	}
	for _, tc := range []struct {
		name   string
		exp    labels.Expected
		rep    *record.Grading
		passed *bool
		want   map[string]float64
	}{
		{"labelled pass, graded pass", labels.Expected{Passed: &yes}, graded(&yes, f(1)), &yes,
			map[string]float64{MetricAgreement: 1, MetricFalseNegative: 0, MetricAbstention: 0}},
		{"labelled fail, graded pass: a false positive", labels.Expected{Passed: &no, Score: f(0.2)}, graded(&yes, f(0.9)), &no,
			map[string]float64{MetricAgreement: 0, MetricFalsePositive: 1, MetricAbstention: 0, MetricScoreError: 0.7}},
		{"labelled pass, graded fail: a false negative", labels.Expected{Passed: &yes}, graded(&no, f(0.1)), &no,
			map[string]float64{MetricAgreement: 0, MetricFalseNegative: 1, MetricAbstention: 0}},
		{"no case verdict: an abstention, counted as a disagreement", labels.Expected{Passed: &no}, graded(nil, nil), &no,
			map[string]float64{MetricAgreement: 0, MetricAbstention: 1}},
		{"the grading failed", labels.Expected{Passed: &yes}, nil, &no,
			map[string]float64{MetricAgreement: 0, MetricAbstention: 1}},
		{"assertions: one agrees, one could not grade", labels.Expected{Assertions: map[string]labels.AssertionLabel{
			"a": {Passed: true, Score: f(1)}, "b": {Passed: false}}},
			graded(&yes, f(0.5), record.AssertionOutcome{ID: "a", Passed: true, Score: 0.75}, record.AssertionOutcome{ID: "b", Error: "judge failed"}), nil,
			map[string]float64{MetricAssertionAgreement: 0.5, MetricAbstention: 1, MetricScoreError: 0.25}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := record.Sample{Metrics: map[string]float64{}}
			scoreLabel(&s, tc.exp, tc.rep)
			if diff := cmp.Diff(tc.want, s.Metrics); diff != "" {
				t.Errorf("metrics (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.passed, s.Passed); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
		})
	}
}

// A .json rubric sets the threshold and replaces config fields; a text
// rubric is the criteria.
func TestRubricCase(t *testing.T) {
	c := &Campaign{Grader: &GraderSpec{Rubrics: []RubricFile{{Assertion: "q", File: "q.json"}, {Assertion: "r", File: "r.md"}}}}
	lb := &labelled{run: &lux.Case{ID: "x", Assertions: []lux.AssertionSpec{
		{Type: "rubric", ID: "q", Threshold: 0.8, Config: map[string]any{"criteria": "old", "model": "m1"}},
		{Type: "rubric", ID: "r", Config: map[string]any{"criteria": "old"}},
	}}}
	cand := &Candidate{ID: "v", Files: map[string]string{"q.json": `{"threshold": 0.6, "criteria": "new", "evidence": {"maxEvents": 5}}`, "r.md": "  criteria text\n"}}
	got, err := c.rubricCase(lb, cand)
	if err != nil {
		t.Fatal(err)
	}
	want := []lux.AssertionSpec{
		{Type: "rubric", ID: "q", Threshold: 0.6, Config: map[string]any{"criteria": "new", "model": "m1", "evidence": map[string]any{"maxEvents": 5.0}}},
		{Type: "rubric", ID: "r", Config: map[string]any{"criteria": "criteria text"}},
	}
	if diff := cmp.Diff(want, got.Assertions); diff != "" {
		t.Errorf("assertions (-want +got):\n%s", diff)
	}
	if lb.run.Assertions[0].Config["criteria"] != "old" || lb.run.Assertions[0].Threshold != 0.8 {
		t.Error("the run's case was changed")
	}
	cand.Files["q.json"] = `{"threshold": "high"}`
	if _, err := c.rubricCase(lb, cand); err == nil {
		t.Error("a threshold that is not a number is accepted")
	}
}
