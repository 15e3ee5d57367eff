package labels

import (
	"errors"
	"maps"
	"math"
	"slices"

	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/stats"
)

// Graded is one label beside the grading it is measured against: the
// run's recorded grading, a regrading with today's assertions, or a
// candidate rubric's in a grader experiment.
type Graded struct {
	Label   Label
	Grading *record.Grading // nil: the run has no grading
}

// Confusion counts verdicts with the label as the truth and pass as the
// positive class: TP labelled pass and graded pass, FP labelled fail but
// graded pass (a lenient grader), FN labelled pass but graded fail (a
// strict one), TN labelled fail and graded fail.
type Confusion struct {
	TP int `json:"tp"`
	FP int `json:"fp"`
	FN int `json:"fn"`
	TN int `json:"tn"`
}

// N is the number of verdicts compared.
func (c Confusion) N() int { return c.TP + c.FP + c.FN + c.TN }

// Table is how one grader subject (the case verdict, or one assertion)
// agrees with the labels of it.
type Table struct {
	// Subject is "case" or the assertion's id.
	Subject string `json:"subject"`
	// Labels is how many labels give this subject a verdict.
	Labels int `json:"labels"`
	// Abstained: the grading gave no verdict (the assertion could not
	// grade, the case is ungraded). Missing: the grading has no such
	// assertion, or the run no grading. Neither is in the confusion table.
	Abstained int `json:"abstained"`
	Missing   int `json:"missing"`
	Confusion
	// Agreement is (TP + TN)/N; FalsePositiveRate FP/(FP + TN), the share
	// of labelled failures graded pass; FalseNegativeRate FN/(FN + TP).
	// Nil where the denominator is 0.
	Agreement         *float64 `json:"agreement,omitempty"`
	FalsePositiveRate *float64 `json:"falsePositiveRate,omitempty"`
	FalseNegativeRate *float64 `json:"falseNegativeRate,omitempty"`
	// Kappa is Cohen's kappa between label and grader verdicts; Alpha is
	// Krippendorff's alpha (nominal) over the same pairs.
	Kappa Coefficient `json:"kappa"`
	Alpha Coefficient `json:"alpha"`
	// Score compares the labelled scores with the graded ones, where both
	// exist.
	Score *ScoreAgreement `json:"score,omitempty"`
}

// ScoreAgreement compares labelled and graded scores.
type ScoreAgreement struct {
	N int `json:"n"`
	// MAE is the mean absolute error |graded − labelled|.
	MAE float64 `json:"mae"`
	// Alpha is Krippendorff's alpha with the interval metric.
	Alpha Coefficient `json:"alpha"`
}

// Coefficient is an agreement coefficient with its interval, or why it
// has none.
type Coefficient struct {
	Estimate  *float64 `json:"estimate,omitempty"`
	Lower     *float64 `json:"lower,omitempty"`
	Upper     *float64 `json:"upper,omitempty"`
	Level     float64  `json:"level,omitempty"`
	Method    string   `json:"method,omitempty"`
	Units     int      `json:"units,omitempty"`
	Resamples int      `json:"resamples,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
	// Undefined says why there is no estimate (too few labels, one
	// category only).
	Undefined string `json:"undefined,omitempty"`
}

// Report is the agreement of a grading with a set of labels.
type Report struct {
	Case       Table   `json:"case"`
	Assertions []Table `json:"assertions"` // by assertion id
}

// Agree measures how the gradings agree with their labels: the case
// verdict and score, and each labelled assertion's verdict and score.
// Each label is one unit of the bootstrap intervals (cfg: Level,
// Resamples, Seed; the method is the percentile bootstrap).
func Agree(items []Graded, cfg stats.Config) Report {
	caseAcc := &accumulator{subject: "case"}
	byID := map[string]*accumulator{}
	for _, it := range items {
		g, exp := it.Grading, it.Label.Expected
		if exp.Passed != nil {
			switch {
			case g == nil:
				caseAcc.missing++
			case g.Passed == nil:
				caseAcc.abstained++
			default:
				caseAcc.add(*exp.Passed, *g.Passed)
			}
		}
		if exp.Score != nil && g != nil && g.Score != nil {
			caseAcc.addScore(*exp.Score, *g.Score)
		}
		if exp.Passed != nil || exp.Score != nil {
			caseAcc.labels++
		}
		for id, al := range exp.Assertions {
			acc := byID[id]
			if acc == nil {
				acc = &accumulator{subject: id}
				byID[id] = acc
			}
			acc.labels++
			out := findOutcome(g, id)
			switch {
			case out == nil:
				acc.missing++
			case out.Error != "":
				acc.abstained++
			default:
				acc.add(al.Passed, out.Passed)
				if al.Score != nil {
					acc.addScore(*al.Score, out.Score)
				}
			}
		}
	}
	r := Report{Case: caseAcc.table(cfg), Assertions: []Table{}}
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		r.Assertions = append(r.Assertions, byID[id].table(cfg))
	}
	return r
}

func findOutcome(g *record.Grading, id string) *record.AssertionOutcome {
	if g == nil {
		return nil
	}
	for i := range g.Assertions {
		if g.Assertions[i].ID == id {
			return &g.Assertions[i]
		}
	}
	return nil
}

type accumulator struct {
	subject                    string
	labels, abstained, missing int
	Confusion
	want, got           []string // verdicts, "pass" or "fail"
	wantScore, gotScore []float64
}

func (a *accumulator) add(want, got bool) {
	switch {
	case want && got:
		a.TP++
	case !want && got:
		a.FP++
	case want && !got:
		a.FN++
	default:
		a.TN++
	}
	a.want = append(a.want, verdictWord(want))
	a.got = append(a.got, verdictWord(got))
}

func (a *accumulator) addScore(want, got float64) {
	a.wantScore = append(a.wantScore, want)
	a.gotScore = append(a.gotScore, got)
}

func verdictWord(p bool) string {
	if p {
		return "pass"
	}
	return "fail"
}

func (a *accumulator) table(cfg stats.Config) Table {
	t := Table{Subject: a.subject, Labels: a.labels, Abstained: a.abstained, Missing: a.missing, Confusion: a.Confusion}
	t.Agreement = ratio(a.TP+a.TN, a.N())
	t.FalsePositiveRate = ratio(a.FP, a.FP+a.TN)
	t.FalseNegativeRate = ratio(a.FN, a.FN+a.TP)
	t.Kappa = coefficient(stats.CohenKappa(a.want, a.got, cfg))
	units := make([][]float64, len(a.want))
	for i := range a.want {
		units[i] = []float64{passValue(a.want[i]), passValue(a.got[i])}
	}
	t.Alpha = coefficient(stats.KrippendorffAlpha(units, stats.Nominal, cfg))
	if n := len(a.wantScore); n > 0 {
		s := &ScoreAgreement{N: n}
		units := make([][]float64, n)
		for i := range n {
			s.MAE += math.Abs(a.gotScore[i] - a.wantScore[i])
			units[i] = []float64{a.wantScore[i], a.gotScore[i]}
		}
		s.MAE /= float64(n)
		s.Alpha = coefficient(stats.KrippendorffAlpha(units, stats.IntervalMetric, cfg))
		t.Score = s
	}
	return t
}

func passValue(s string) float64 {
	if s == "pass" {
		return 1
	}
	return 0
}

func ratio(num, den int) *float64 {
	if den == 0 {
		return nil
	}
	v := float64(num) / float64(den)
	return &v
}

func coefficient(iv stats.Interval, err error) Coefficient {
	if err != nil {
		var se *stats.Error
		if errors.As(err, &se) && se.Code == stats.CodeDomain && se.Detail != "" {
			return Coefficient{Undefined: se.Detail}
		}
		return Coefficient{Undefined: stats.Message(err)}
	}
	c := Coefficient{Estimate: &iv.Estimate, Lower: &iv.Lower, Upper: &iv.Upper, Level: iv.Level,
		Method: string(iv.Method), Units: iv.Units, Resamples: iv.Resamples}
	for _, w := range iv.Warnings {
		c.Warnings = append(c.Warnings, string(w.Code)+": "+w.Detail)
	}
	return c
}

// AnnotatorAgreement is Krippendorff's alpha (nominal) among the people
// who labelled the same runs: each run is a unit, each label's case
// verdict one of its values. Only runs with two or more case verdicts
// count (Units says how many); ok is false when there are none. It says
// how far the labels themselves can be trusted: a grader cannot be
// expected to agree with people better than they agree with each other.
func AnnotatorAgreement(ls []Label, cfg stats.Config) (c Coefficient, ok bool) {
	byRun := map[string][]float64{}
	for _, l := range ls {
		if l.Expected.Passed != nil {
			byRun[l.Run] = append(byRun[l.Run], passValue(verdictWord(*l.Expected.Passed)))
		}
	}
	var units [][]float64
	for _, run := range slices.Sorted(maps.Keys(byRun)) {
		if len(byRun[run]) >= 2 {
			units = append(units, byRun[run])
		}
	}
	if len(units) == 0 {
		return Coefficient{}, false
	}
	return coefficient(stats.KrippendorffAlpha(units, stats.Nominal, cfg)), true
}
