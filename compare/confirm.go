package compare

import (
	"fmt"
	"math"

	"github.com/luxeval/lux/stats"
)

// ConfirmDecision is what confirming one case against its baseline
// concluded (see ConfirmTest).
type ConfirmDecision string

// The decisions of a confirmation.
const (
	// ConfirmRegressed: the case's new pass probability is below its
	// baseline's (it is below the baseline's lower confidence bound).
	ConfirmRegressed ConfirmDecision = "regressed"
	// ConfirmImproved: the mirror image, for a case the baseline failed:
	// its new fail probability is below the baseline's.
	ConfirmImproved ConfirmDecision = "improved"
	// ConfirmHeld: the new pass probability (fail probability, for an
	// improvement) is above the baseline's confidence bound: the screening
	// run's disagreement was not borne out. It does not say that the pass
	// probability equals the baseline's.
	ConfirmHeld ConfirmDecision = "held"
	// ConfirmUndecided: the cap on extra runs was reached first.
	ConfirmUndecided ConfirmDecision = "undecided"
	// ConfirmContinue: not decided yet, and runs remain under the cap.
	ConfirmContinue ConfirmDecision = "continue"
)

// ConfirmDirection says which change the screening run suggested.
type ConfirmDirection string

// The directions of a confirmation.
const (
	// Regression: the baseline mostly passed, the screening run failed.
	Regression ConfirmDirection = "regression"
	// Improvement: the baseline mostly failed, the screening run passed.
	Improvement ConfirmDirection = "improvement"
)

// ConfirmTest is the sequential test of one case whose screening run
// disagreed with its baseline. It counts in "hits": failures for a
// Regression, passes for an Improvement, so both directions are one test
// of H0: p ≤ Bound against "the new hit probability is above the
// baseline's".
//
// Bound is the one-sided Clopper–Pearson upper confidence bound, at level
// 1 − α/(2M), on the baseline's hit probability (M is the number of cases
// confirmed at once: Bonferroni). Two e-processes run on the new runs after
// the screening run (the screening run selected the case, so it is never
// evidence): EChange, a likelihood ratio against Bernoulli(Bound) mixed
// over a uniform prior on (Bound, 1], for H0: p ≤ Bound; and EHeld, mixed
// over [0, Bound), for H0: p ≥ Bound. Each is a nonnegative supermartingale
// under its null, so by Ville's inequality it reaches 2M/α with
// probability at most α/(2M) however the runs are stopped. The case is
// decided regressed (improved) when EChange reaches 2M/α, held when EHeld
// does, undecided at the cap.
//
// Assumptions: every run of a case, baseline and new, is an independent
// draw with the case's fixed pass probability of its side (same case,
// same environment; runs do not influence each other). Then the chance
// that any of the M cases is called regressed (improved) while its new
// pass (fail) probability is at least its baseline's is at most α: α/2
// for the baseline bounds, α/2 for the e-processes, each split over the M
// cases. A held decision claims only that the new hit probability is
// below Bound.
type ConfirmTest struct {
	Direction ConfirmDirection `json:"direction"`
	// BaselineHits of BaselineRuns are the baseline's graded runs that
	// failed (Regression) or passed (Improvement).
	BaselineHits int `json:"baselineHits"`
	BaselineRuns int `json:"baselineRuns"`
	// Bound is the baseline's upper confidence bound on the hit
	// probability (for a Regression, 1 − Bound is the lower bound on the
	// baseline's pass probability).
	Bound     float64 `json:"bound"`
	Threshold float64 `json:"threshold"` // 2M/α
	MaxRuns   int     `json:"maxRuns"`
	// Hits of Runs are the graded extra runs.
	Hits int `json:"hits"`
	Runs int `json:"runs"`
	// Ungraded extra runs (errors, cancellations) count against MaxRuns
	// but are no evidence either way.
	Ungraded int     `json:"ungraded,omitempty"`
	EChange  float64 `json:"eChange"`
	EHeld    float64 `json:"eHeld"`
}

// NewConfirmTest starts the test of one of m cases at family-wise level
// alpha, from the baseline's graded runs, at most maxRuns extra runs.
func NewConfirmTest(dir ConfirmDirection, baselineHits, baselineRuns, m int, alpha float64, maxRuns int) (*ConfirmTest, error) {
	switch {
	case dir != Regression && dir != Improvement:
		return nil, fmt.Errorf("compare: confirm: direction %q is neither %q nor %q", dir, Regression, Improvement)
	case !(alpha > 0 && alpha < 1):
		return nil, fmt.Errorf("compare: confirm: alpha must be in (0, 1), got %v", alpha)
	case m < 1 || maxRuns < 1:
		return nil, fmt.Errorf("compare: confirm: need at least one case and one run, got %d and %d", m, maxRuns)
	case baselineRuns < 1 || baselineHits < 0 || baselineHits > baselineRuns:
		return nil, fmt.Errorf("compare: confirm: baseline of %d hits in %d runs", baselineHits, baselineRuns)
	}
	// ClopperPearsonInterval is two-sided, each tail (1 − level)/2.
	iv, err := stats.ClopperPearsonInterval(baselineHits, baselineRuns, 1-alpha/float64(m))
	if err != nil {
		return nil, fmt.Errorf("compare: confirm: %w", err)
	}
	t := &ConfirmTest{Direction: dir, BaselineHits: baselineHits, BaselineRuns: baselineRuns, Bound: iv.Upper,
		Threshold: 2 * float64(m) / alpha, MaxRuns: maxRuns, EChange: 1, EHeld: 1}
	return t, nil
}

// Observe adds one graded extra run: passed is its verdict.
func (t *ConfirmTest) Observe(passed bool) {
	if passed == (t.Direction == Improvement) {
		t.Hits++
	}
	t.Runs++
	t.EChange, t.EHeld = ConfirmEValues(t.Hits, t.Runs-t.Hits, t.Bound)
}

// Spent counts an extra run that could not be graded: it uses up the cap
// but is no evidence either way.
func (t *ConfirmTest) Spent() { t.Ungraded++ }

// Decision is where the test stands.
func (t *ConfirmTest) Decision() ConfirmDecision {
	switch {
	case t.EChange >= t.Threshold:
		if t.Direction == Improvement {
			return ConfirmImproved
		}
		return ConfirmRegressed
	case t.EHeld >= t.Threshold:
		return ConfirmHeld
	case t.Runs+t.Ungraded >= t.MaxRuns:
		return ConfirmUndecided
	}
	return ConfirmContinue
}

// ConfirmEValues returns the two mixture e-values of ConfirmTest after
// hits and misses against the bound b in (0, 1): the likelihood ratio
// ∫ q^h (1−q)^m dπ(q) / (b^h (1−b)^m) with π uniform on (b, 1] (change)
// and on [0, b) (held). With integer exponents the integrals are binomial
// tails: ∫₀ᵇ q^h (1−q)^m dq = B(h+1, m+1) · P(Binomial(h+m+1, b) ≥ h+1).
func ConfirmEValues(hits, misses int, b float64) (change, held float64) {
	if b <= 0 || b >= 1 {
		return 1, 1 // a bound at 0 or 1 leaves no room for one side
	}
	n := hits + misses
	lgH, _ := math.Lgamma(float64(hits + 1))
	lgM, _ := math.Lgamma(float64(misses + 1))
	lgN, _ := math.Lgamma(float64(n + 2))
	logB := lgH + lgM - lgN
	logNull := float64(hits)*math.Log(b) + float64(misses)*math.Log1p(-b)
	below := stats.BinomialCDF(hits, n+1, b) // P(Binomial(n+1, b) ≤ h) = ∫_b^1 / B
	change = math.Exp(logB + math.Log(below) - math.Log1p(-b) - logNull)
	held = math.Exp(logB + math.Log(1-below) - math.Log(b) - logNull)
	return change, held
}
