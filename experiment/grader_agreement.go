package experiment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/luxeval/lux/labels"
	"github.com/luxeval/lux/stats"
)

// Agreement is how one candidate's gradings agree with the labels of one
// split, over every unit (each repetition of the judge is one grading): the
// confusion table, agreement, false-positive and false-negative rates,
// Cohen's kappa and Krippendorff's alpha with percentile-bootstrap
// intervals over the gradings, and score errors, of the case verdict and
// of each labelled assertion (see labels.Agree). Annotators, when people
// labelled the same runs, is their own agreement: the ceiling a judge can
// be expected to reach.
type Agreement struct {
	Candidate  string              `json:"candidate"`
	Split      string              `json:"split"`
	Gradings   int                 `json:"gradings"`
	Failed     int                 `json:"failed"` // gradings that failed (missing from the tables)
	Report     labels.Report       `json:"report"`
	Annotators *labels.Coefficient `json:"annotators,omitempty"`
}

// agreementCoefficient reports whether a metric name asks for an
// agreement coefficient (Cohen's kappa, Krippendorff's alpha), which a
// grader experiment reports but does not gate on.
func agreementCoefficient(metric string) bool {
	m := strings.ToLower(metric)
	return strings.Contains(m, "kappa") || strings.Contains(m, "alpha")
}

// agreementSeed fixes the bootstrap of the agreement intervals, so that a
// report recomputes the same ones.
const agreementSeed = 1

// graderAgreement is every candidate's Agreement per split, in campaign
// order.
func graderAgreement(cands []CandidateRef, units []*Unit, splits []string) []Agreement {
	cfg := stats.Config{Seed: agreementSeed}
	// The bootstrap resamples by position: take the units in an order of
	// their own (label, then repetition), not in the order they finished,
	// which concurrency and resumes change.
	units = slices.Clone(units)
	slices.SortFunc(units, func(a, b *Unit) int {
		if c := strings.Compare(a.CaseID, b.CaseID); c != 0 {
			return c
		}
		return a.Repetition - b.Repetition
	})
	var out []Agreement
	for _, cand := range cands {
		for _, split := range splits {
			a := Agreement{Candidate: cand.ID, Split: split}
			var items []labels.Graded
			seen := map[string]bool{}
			var ls []labels.Label
			for _, u := range units {
				if u.Candidate != cand.ID || u.Split != split || u.Label == nil {
					continue
				}
				a.Gradings++
				if !seen[u.Label.ID] {
					seen[u.Label.ID] = true
					ls = append(ls, *u.Label)
				}
				if u.Grading == nil {
					a.Failed++
					continue
				}
				items = append(items, labels.Graded{Label: *u.Label, Grading: u.Grading})
			}
			if a.Gradings == 0 {
				continue
			}
			a.Report = labels.Agree(items, cfg)
			if c, ok := labels.AnnotatorAgreement(ls, cfg); ok {
				a.Annotators = &c
			}
			out = append(out, a)
		}
	}
	return out
}

// AgreementLines are the agreement of each candidate as a report shows
// it: per candidate and split, the case verdict's and each assertion's
// agreement, false-positive and false-negative rates, kappa, alpha and
// score error, then the annotators' ceiling.
func AgreementLines(as []Agreement) []string {
	var out []string
	for _, a := range as {
		head := fmt.Sprintf("%s (%s): %d gradings", a.Candidate, a.Split, a.Gradings)
		if a.Failed > 0 {
			head += fmt.Sprintf(", %d failed", a.Failed)
		}
		out = append(out, head)
		for _, t := range append([]labels.Table{a.Report.Case}, a.Report.Assertions...) {
			if t.N() == 0 && t.Abstained == 0 {
				continue
			}
			line := fmt.Sprintf("  %s: agreement %s (TP %d, FP %d, FN %d, TN %d, abstained %d), false positives %s, false negatives %s, kappa %s, alpha %s",
				t.Subject, rate(t.Agreement), t.TP, t.FP, t.FN, t.TN, t.Abstained, rate(t.FalsePositiveRate), rate(t.FalseNegativeRate), coefficientText(t.Kappa), coefficientText(t.Alpha))
			if t.Score != nil {
				line += fmt.Sprintf(", score MAE %.3f over %d", t.Score.MAE, t.Score.N)
			}
			out = append(out, line)
		}
		if c := a.Annotators; c != nil {
			out = append(out, fmt.Sprintf("  annotators (the ceiling): Krippendorff's alpha among people who labelled the same runs %s", coefficientText(*c)))
		}
	}
	return out
}

func rate(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *v)
}

// coefficientText is "0.62 [0.31, 0.88] percentile-bootstrap 95%", or why
// there is none.
func coefficientText(c labels.Coefficient) string {
	if c.Estimate == nil {
		if c.Undefined != "" {
			return "undefined (" + strings.TrimSpace(c.Undefined) + ")"
		}
		return "-"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f] %s %g%% over %d", *c.Estimate, *c.Lower, *c.Upper, c.Method, 100*c.Level, c.Units)
}
