package experiment

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flatUnits are units of candidate on independent cases (no cluster),
// passing where pass is 1, all with the same identity per case.
func flatUnits(candidate string, pass []int) []*Unit {
	var out []*Unit
	for i, p := range pass {
		passed := p == 1
		id := fmt.Sprintf("case-%d", i)
		out = append(out, &Unit{Candidate: candidate, Profile: "default", Split: SplitValidation, CaseID: id, Repetition: 1,
			Sample: record.Sample{CaseID: id, Repetition: 1, ExitReason: lux.ExitDone, Passed: &passed,
				IdentityHash: "same-" + id, Metrics: map[string]float64{"agent.total": float64(100 + 10*p)}}})
	}
	return out
}

func flatEvaluate(t *testing.T, c *Campaign, before, after []int) *Evaluation {
	t.Helper()
	units := append(flatUnits(BaselineID, before), flatUnits("v", after)...)
	cands := []CandidateRef{{ID: BaselineID, Bytes: 10}, {ID: "v", Bytes: 12}}
	ev, err := evaluate(t.Context(), c, cands, newEvidence(t.TempDir(), units), []string{SplitValidation}, nil)
	require.NoError(t, err)
	return ev
}

func passRateAtLeast(min float64) Constraint {
	return Constraint{Metric: MetricPassRate, RelativeTo: BaselineID, Min: &min, Confidence: &Confidence{}}
}

// Six cases that all went from fail to pass: the t interval has zero
// width, which claims certainty from six cases; the effect falls back to
// the exact bound and names it: 2·0.025^(1/6) − 1 = 0.0815.
func TestSixCasesAllImprovedGetAnExactBoundNotAZeroWidthInterval(t *testing.T) {
	ev := flatEvaluate(t, handCampaign([]Constraint{passRateAtLeast(0)}, nil), make([]int, 6), []int{1, 1, 1, 1, 1, 1})
	e := findEffect(ev.Effects, "v", "default", SplitValidation, MetricPassRate)
	require.NotNil(t, e)
	require.NotNil(t, e.Interval)
	assert.Equal(t, stats.ClopperPearson, e.Interval.Method)
	assert.InDelta(t, 2*math.Pow(0.025, 1.0/6)-1, e.Interval.Lower, 1e-12)
	assert.Equal(t, 1.0, e.Interval.Upper)
	assert.Equal(t, Promote, ev.Decision.Outcome)
	assert.Equal(t, "promote v: pass rate effect (default, validation) +1 [+0.0815, +1], clopper-pearson 95%, 6 cases", ev.Sentence())
	var warned bool
	for _, w := range e.Warnings {
		warned = warned || strings.Contains(w.Message, "zero width")
	}
	assert.True(t, warned, "the fallback is said: %v", e.Warnings)
}

// Three cases that all went from fail to pass: no result on three units
// can pass "effect ≥ 0" at 95 %, so the variant is not rejected: the
// decision is inconclusive, naming the units it had and needed.
func TestTooFewUnitsIsInconclusiveNotAReject(t *testing.T) {
	ev := flatEvaluate(t, handCampaign([]Constraint{passRateAtLeast(0)}, nil), make([]int, 3), []int{1, 1, 1})
	assert.Equal(t, Inconclusive, ev.Decision.Outcome)
	assert.Empty(t, ev.Decision.Champion)
	var gate *Gate
	for i := range ev.Decision.Gates {
		if ev.Decision.Gates[i].Candidate == "v" {
			gate = &ev.Decision.Gates[i]
		}
	}
	require.NotNil(t, gate)
	assert.True(t, gate.Inconclusive)
	assert.Equal(t, 6, gate.Need)
	assert.Equal(t, "inconclusive: too few units to decide (v: 3 of the 6 units needed on validation)", ev.Sentence())
	verdicts := strings.Join(ev.Verdicts(), "\n")
	assert.Contains(t, verdicts, "inconclusive v: too few units: pass rate effect (default, validation) +1 [-1, +1] clopper-pearson 95% needs ≥ 0 with at least 6 units, has 3")
	assert.NotContains(t, verdicts, "reject")
}

// The fewest units with which a perfect result passes, by method (each
// computed by hand from the method's formula).
func TestNeededUnits(t *testing.T) {
	level99 := &Confidence{Level: 0.99}
	tests := []struct {
		name string
		k    Constraint
		need int
	}{
		// 2·0.025^(1/n) − 1 ≥ 0 ⇔ n ≥ log2(40) = 5.32.
		{"effect ≥ 0, t", passRateAtLeast(0), 6},
		// 2·0.005^(1/n) − 1 ≥ 0 ⇔ n ≥ log2(200) = 7.64.
		{"effect ≥ 0, t 99%", Constraint{Metric: MetricPassRate, RelativeTo: BaselineID, Min: num(0), Confidence: level99}, 8},
		// 2·0.025^(1/n) − 1 ≥ 0.1 ⇔ n ≥ ln(0.025)/ln(0.55) = 6.17.
		{"effect ≥ 0.1, t", passRateAtLeast(0.1), 7},
		// 2·0.025^(1/n) − 1 ≥ −0.05 from n = 5 (4.96), but below 6 units
		// package compare gives the whole range [−1, 1].
		{"effect ≥ −0.05, t", passRateAtLeast(-0.05), 6},
		// 1 − 2·√(ln 40 / 2n) ≥ 0 ⇔ n ≥ 2·ln 40 = 7.38.
		{"effect ≥ 0, hoeffding", Constraint{Metric: MetricPassRate, RelativeTo: BaselineID, Min: num(0), Confidence: &Confidence{Method: stats.Hoeffding}}, 8},
		// 0.025^(1/n) ≥ 0.8 ⇔ n ≥ ln(0.025)/ln(0.8) = 16.5.
		{"pass rate ≥ 0.8, t", Constraint{Metric: MetricPassRate, Min: num(0.8), Confidence: &Confidence{}}, 17},
		// n/(n + z²) ≥ 0.8 ⇔ n ≥ 4·1.959964² = 15.37.
		{"pass rate ≥ 0.8, wilson", Constraint{Metric: MetricPassRate, Min: num(0.8), Confidence: &Confidence{Method: stats.Wilson}}, 16},
		// 1 − √(ln 40 / 2n) ≥ 0.8 ⇔ n ≥ ln 40 / 0.08 = 46.1.
		{"pass rate ≥ 0.8, hoeffding", Constraint{Metric: MetricPassRate, Min: num(0.8), Confidence: &Confidence{Method: stats.Hoeffding}}, 47},
		// Unbounded: the fewest units an interval needs.
		{"tokens, t", Constraint{Metric: "agent.total", RelativeTo: BaselineID, Relative: true, Max: num(0.1), Confidence: &Confidence{}}, 2},
		{"no confidence", Constraint{Metric: MetricPassRate, RelativeTo: BaselineID, Min: num(0)}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			need, ok := neededUnits(tt.k)
			assert.True(t, ok)
			assert.Equal(t, tt.need, need)
		})
	}
	_, ok := neededUnits(Constraint{Metric: MetricPassRate, Min: num(1.5), Confidence: &Confidence{}})
	assert.False(t, ok, "no number of units reaches a bound outside [0, 1]")
}

// A relative gate prints its values as percentages of the baseline.
func TestRelativeGateTextIsInPercent(t *testing.T) {
	lo, hi := 30.0, 36.6
	g := Gate{Candidate: "v", Metric: "agent.total", Profile: "default", Split: SplitValidation, RelativeTo: BaselineID, Relative: true,
		Max: num(0.1), Value: 33.3, Lower: &lo, Upper: &hi, Method: stats.StudentT, Level: 0.95, Units: 8}
	assert.Equal(t, "agent tokens effect (default, validation) +3330% [+3000%, +3660%] t 95% needs ≤ +10%: failed", g.Text())
}

// An experiment in which no case pairs with the baseline cannot decide:
// an error, never "retain the baseline".
func TestNoPairedCaseIsAnError(t *testing.T) {
	c := handCampaign([]Constraint{passRateAtLeast(0)}, nil)
	units := append(flatUnits(BaselineID, make([]int, 6)), flatUnits("v", []int{1, 1, 1, 1, 1, 1})...)
	for _, u := range units[6:] {
		u.Sample.IdentityHash = "other-" + u.CaseID
	}
	cands := []CandidateRef{{ID: BaselineID, Bytes: 10}, {ID: "v", Bytes: 12}}
	_, err := evaluate(t.Context(), c, cands, newEvidence(t.TempDir(), units), []string{SplitValidation}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no case of candidate v pairs with the baseline (default, validation): 6 case(s) left out")
}
