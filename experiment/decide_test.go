package experiment

import (
	"fmt"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// handUnits are units of candidate on cases in clusters of 2, passing
// where pass is 1.
func handUnits(candidate string, pass []int) []*Unit {
	var out []*Unit
	for i, p := range pass {
		passed := p == 1
		id := fmt.Sprintf("case-%d", i)
		cluster := string(rune('A' + i/2))
		out = append(out, &Unit{Candidate: candidate, Profile: "default", Split: SplitValidation, CaseID: id, Cluster: cluster, Repetition: 1,
			Sample: record.Sample{CaseID: id, Repetition: 1, Cluster: cluster, ExitReason: lux.ExitDone, Passed: &passed,
				IdentityHash: "same-" + id, Metrics: map[string]float64{"agent.total": float64(100 + 10*p)}}})
	}
	return out
}

func handCampaign(constraints []Constraint, minimize []Objective) *Campaign {
	c := Campaign{ID: "hand", Profiles: map[string]Profile{"default": {Driver: &lux.PluginRef{Name: "x"}}},
		Splits:     Splits{Validation: &Selector{Patterns: []string{"x"}}},
		Objectives: Objectives{Constraints: constraints, Minimize: minimize}}
	c = c.withDefaults()
	return &c
}

func handEvaluate(t *testing.T, c *Campaign) *Evaluation {
	t.Helper()
	units := append(handUnits(BaselineID, make([]int, 16)), handUnits("v", []int{1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1})...)
	cands := []CandidateRef{{ID: BaselineID, Bytes: 10}, {ID: "v", Bytes: 12}}
	ev, err := evaluate(t.Context(), c, cands, newEvidence(t.TempDir(), units), []string{SplitValidation}, nil)
	require.NoError(t, err)
	return ev
}

// The paired differences are 1 1 | 1 0 | 0 0 | 1 1, twice, over clusters
// A..H: mean 10/16; cluster sums of deviations S = .75, −.25, −1.25, .75
// (twice), Σ S² = 5.5, so the CR1 standard error is √(8/7 · 5.5)/16 =
// 0.156696 and with t(0.975, 7) = 2.364624 the interval is 0.625 ∓ 0.370527.
func TestEffectsOnAClusteredDatasetByHand(t *testing.T) {
	ev := handEvaluate(t, handCampaign(nil, nil))
	e := findEffect(ev.Effects, "v", "default", SplitValidation, MetricPassRate)
	require.NotNil(t, e)
	require.NotNil(t, e.Interval)
	assert.InDelta(t, 0.625, e.Delta, 1e-12)
	assert.Equal(t, 16, e.Cases)
	assert.Equal(t, 8, e.Interval.Units)
	assert.True(t, e.Interval.Clustered)
	assert.InDelta(t, 0.156696, e.Interval.StdErr, 1e-6)
	assert.InDelta(t, 0.625-0.370527, e.Interval.Lower, 1e-5)
	assert.InDelta(t, 0.625+0.370527, e.Interval.Upper, 1e-5)
	assert.Equal(t, "pass rate effect (default, validation) +0.625 [+0.254, +0.996], t 95%, 8 clusters", e.IntervalText())
	tokens := findEffect(ev.Effects, "v", "default", SplitValidation, "agent.total")
	require.NotNil(t, tokens)
	assert.InDelta(t, 6.25, tokens.Delta, 1e-12)
}

func TestRankingAndChampion(t *testing.T) {
	relative := Constraint{Metric: MetricPassRate, RelativeTo: BaselineID, Min: num(0.5)}
	withInterval := relative
	withInterval.Confidence = &Confidence{}
	atMost := Constraint{Metric: MetricPassRate, RelativeTo: BaselineID, Max: num(0.2), Confidence: &Confidence{}}
	tests := []struct {
		name        string
		constraints []Constraint
		minimize    []Objective
		outcome     string
		ranking     []string
	}{
		{"no constraint: the higher pass rate wins", nil, nil, Promote, []string{"v", BaselineID}},
		{"an effect whose estimate is above 0.5 passes", []Constraint{relative}, nil, Promote, []string{"v", BaselineID}},
		// With 8 clusters not even every case going from fail to pass could
		// show an effect of at least 0.5 at 95 % (13 units needed).
		{"an effect of 0.5 cannot be shown on 8 clusters: undecided", []Constraint{withInterval}, nil, Inconclusive, []string{BaselineID, "v"}},
		{"an effect whose interval reaches above 0.2 fails a bound of 0.2", []Constraint{atMost}, nil, Retain, []string{BaselineID, "v"}},
		{"nobody reaches 0.9: the smaller violation ranks first", []Constraint{{Metric: MetricPassRate, Min: num(0.9)}}, nil, Reject, []string{"v", BaselineID}},
		{"objectives come before the pass rate", nil, []Objective{{Metric: MetricSubjectBytes}}, Retain, []string{BaselineID, "v"}},
		{"minimizing tokens", nil, []Objective{{Metric: "agent.total"}}, Retain, []string{BaselineID, "v"}},
		{"a bound on bytes", []Constraint{{Metric: MetricSubjectBytes, Max: num(11)}}, nil, Retain, []string{BaselineID, "v"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := handEvaluate(t, handCampaign(tt.constraints, tt.minimize))
			assert.Equal(t, tt.outcome, ev.Decision.Outcome)
			assert.Equal(t, tt.ranking, ev.Decision.Ranking)
			if tt.outcome == Reject || tt.outcome == Inconclusive {
				assert.Empty(t, ev.Decision.Champion)
				assert.NotContains(t, ev.Decision.Eligible, "v")
			} else {
				assert.Equal(t, tt.ranking[0], ev.Decision.Champion)
			}
		})
	}
}
