package experiment

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seqCampaign is a sequential campaign with variants and one pass-rate
// gate (min 0) against the baseline, with defaults applied; cases are
// case-0 … case-(n−1) of the validation split.
func seqCampaign(variants, maxRounds int, futility float64) (Campaign, map[string][]string) {
	c := Campaign{ID: "seq", Profiles: map[string]Profile{"default": {}},
		Splits:     Splits{Validation: &Selector{Patterns: []string{"cases"}}},
		Sequential: &Sequential{MaxRounds: maxRounds, FutilityWinRate: futility}}
	for i := range variants {
		c.Variants = append(c.Variants, Variant{ID: fmt.Sprintf("v%d", i)})
	}
	c.Objectives.Constraints = []Constraint{{Metric: MetricPassRate, RelativeTo: BaselineID, Min: zero()}}
	return c.withDefaults(), nil
}

func refsOf(c Campaign) []CandidateRef {
	refs := []CandidateRef{{ID: BaselineID}}
	for _, v := range c.Variants {
		refs = append(refs, CandidateRef{ID: v.ID})
	}
	return refs
}

// simulate runs one campaign through the engine as the run loop does: each
// round, the baseline and the variants still running get one run of each
// case, passing with the case's probability. It returns the promoted
// variants and the runs spent.
func simulate(t *testing.T, c Campaign, base, cand []float64, rng *rand.Rand) (promoted []string, runs int) {
	t.Helper()
	ids := make([]string, len(base))
	for i := range ids {
		ids[i] = fmt.Sprintf("case-%d", i)
	}
	cases := map[string][]string{SplitValidation: ids}
	e, err := newSeqEngine(&c, refsOf(c), cases)
	require.NoError(t, err)
	idx := sampleIndex{}
	for r := 1; r <= c.Sequential.MaxRounds; r++ {
		active := e.activeCandidates()
		if len(active) == 0 {
			break
		}
		for _, who := range append([]string{BaselineID}, active...) {
			p := cand
			if who == BaselineID {
				p = base
			}
			for i, id := range ids {
				passed := rng.Float64() < p[i]
				idx[sampleKey{who, "default", SplitValidation, id, r}] = &record.Sample{CaseID: id, Repetition: r, Passed: &passed, ExitReason: "done", IdentityHash: "same"}
				runs++
			}
		}
		_, err := e.observe(r, idx)
		require.NoError(t, err)
	}
	for _, v := range e.cands {
		all := true
		for _, g := range e.gatesOf(v) {
			all = all && g.stop == stats.Crossed
		}
		if all {
			promoted = append(promoted, v)
		}
	}
	// The decision, recomputed from the runs as a ledger's reader does,
	// makes exactly those variants eligible.
	var units []*Unit
	for k, s := range idx {
		units = append(units, &Unit{Candidate: k.cand, Profile: k.profile, Split: k.split, CaseID: k.caseID, Repetition: k.rep, Sample: *s})
	}
	refs := map[string][]CaseRef{}
	for _, id := range ids {
		refs[SplitValidation] = append(refs[SplitValidation], CaseRef{ID: id})
	}
	ev, err := evaluate(t.Context(), &c, refsOf(c), newEvidence(t.TempDir(), units), []string{SplitValidation}, refs)
	require.NoError(t, err)
	eligible := slices.DeleteFunc(slices.Clone(ev.Decision.Eligible), func(id string) bool { return id == BaselineID })
	slices.Sort(eligible)
	require.Equal(t, len(promoted), len(eligible), "the decision's eligible variants are those whose tests all crossed")
	if len(promoted) > 0 {
		require.Equal(t, promoted, eligible)
	}
	return promoted, runs
}

// Under the null (every variant has the baseline's pass probability on
// every case), campaigns looked at after every round promote a variant in
// at most alpha of the simulations: Bonferroni over the variants, each
// stopping on its own, for every test a gate may use.
func TestSequentialCampaignUnderTheNullPromotesAtMostAlpha(t *testing.T) {
	for _, tc := range []struct {
		test     string
		futility float64
	}{{TestSign, 0}, {TestSign, 0.7}, {TestBetting, 0}, {TestBetting, 0.2}, {TestEB, 0}} {
		t.Run(fmt.Sprintf("%s futility %v", tc.test, tc.futility), func(t *testing.T) {
			c, _ := seqCampaign(2, 15, 0)
			c.Objectives.Constraints[0].Test = tc.test
			if tc.test == TestSign {
				c.Sequential.FutilityWinRate = tc.futility
			} else {
				c.Sequential.FutilityEffect = tc.futility
			}
			rng := rand.New(rand.NewPCG(22, 5))
			p := make([]float64, 12)
			for i := range p {
				p[i] = 0.2 + 0.6*float64(i)/float64(len(p)-1)
			}
			const campaigns = 200
			wrong := 0
			for range campaigns {
				promoted, _ := simulate(t, c, p, p, rng)
				if len(promoted) > 0 {
					wrong++
				}
			}
			iv, err := stats.ClopperPearsonInterval(wrong, campaigns, 0.99)
			require.NoError(t, err)
			t.Logf("null: %d of %d campaigns promoted a variant (99%% CP [%.3f, %.3f])", wrong, campaigns, iv.Lower, iv.Upper)
			assert.LessOrEqual(t, float64(wrong)/campaigns, c.Sequential.Alpha, "the family-wise error rate is not above alpha")
		})
	}
}

// Under an alternative (0.5 → 0.8 on every case) the campaign promotes the
// better variant, stopping well before its cap most of the time.
func TestSequentialCampaignStopsEarlyUnderAnAlternative(t *testing.T) {
	c, _ := seqCampaign(1, 20, 0.6)
	rng := rand.New(rand.NewPCG(22, 6))
	base, cand := make([]float64, 10), make([]float64, 10)
	for i := range base {
		base[i], cand[i] = 0.5, 0.8
	}
	const campaigns = 100
	promotions, spent := 0, 0
	for range campaigns {
		promoted, runs := simulate(t, c, base, cand, rng)
		promotions += len(promoted)
		spent += runs
	}
	worst := campaigns * 2 * 10 * 20
	t.Logf("alternative: %d of %d promoted, %d of at most %d runs", promotions, campaigns, spent, worst)
	assert.GreaterOrEqual(t, promotions, 90)
	assert.Less(t, spent, worst/2, "stops early on average")
}

// A variant worse than the baseline stops as futile, long before the cap.
func TestSequentialCampaignGivesUpOnAWorseVariant(t *testing.T) {
	c, _ := seqCampaign(1, 30, 0.7)
	rng := rand.New(rand.NewPCG(22, 7))
	base, cand := make([]float64, 10), make([]float64, 10)
	for i := range base {
		base[i], cand[i] = 0.7, 0.3
	}
	promoted, runs := simulate(t, c, base, cand, rng)
	assert.Empty(t, promoted)
	assert.Less(t, runs, 2*10*30/3)
}

// Resuming the engine from a journaled round gives the same e-process as
// one that never stopped, bit for bit.
func TestSequentialEngineResumedFromItsRecordIsTheSameProcess(t *testing.T) {
	c, _ := seqCampaign(2, 10, 0.65)
	c.Objectives.Constraints = append(c.Objectives.Constraints, Constraint{Metric: MetricScore, RelativeTo: BaselineID, Min: zero(), Test: TestBetting},
		Constraint{Metric: MetricScore, RelativeTo: BaselineID, Min: zero(), Test: TestEB})
	ids := []string{"a", "b", "c", "d"}
	cases := map[string][]string{SplitValidation: ids}
	rng := rand.New(rand.NewPCG(1, 2))
	idx := sampleIndex{}
	for r := 1; r <= 10; r++ {
		for _, who := range []string{BaselineID, "v0", "v1"} {
			for _, id := range ids {
				passed := rng.Float64() < 0.6
				score := rng.Float64()
				idx[sampleKey{who, "default", SplitValidation, id, r}] = &record.Sample{CaseID: id, Repetition: r, Passed: &passed, Score: &score}
			}
		}
	}
	whole, err := newSeqEngine(&c, refsOf(c), cases)
	require.NoError(t, err)
	var want []RoundRecord
	for r := 1; r <= 10; r++ {
		rec, err := whole.observe(r, idx)
		require.NoError(t, err)
		want = append(want, rec)
	}
	for cut := 1; cut < 10; cut++ {
		e, err := newSeqEngine(&c, refsOf(c), cases)
		require.NoError(t, err)
		require.NoError(t, e.resume(roundTrip(t, want[cut-1])))
		for r := cut + 1; r <= 10; r++ {
			got, err := e.observe(r, idx)
			require.NoError(t, err)
			assert.Equal(t, want[r-1], got, "round %d after resuming at %d", r, cut)
		}
	}
}

func roundTrip(t *testing.T, rec RoundRecord) RoundRecord {
	t.Helper()
	b, err := json.Marshal(rec)
	require.NoError(t, err)
	var out RoundRecord
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}
