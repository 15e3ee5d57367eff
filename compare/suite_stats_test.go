package compare

import (
	"bytes"
	"encoding/json"
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

// The tests of this file build suites in memory, sample by sample, and
// check the comparison against numbers computed by hand from the raw
// samples (never through this package's own reductions).

// rv is one run of an in-memory suite.
type rv struct {
	id, cluster string
	exit        lux.ExitReason // "" means done
	passed      *bool
	score       *float64
	metrics     map[string]float64
	hash        string // "" means "id-<id>"
}

func rvPass(id string, ms float64) rv {
	return rv{id: id, passed: ptr(true), score: ptr(1.0), metrics: map[string]float64{"durationMs": ms}}
}

func rvFail(id string, ms float64) rv {
	return rv{id: id, passed: ptr(false), score: ptr(0.0), metrics: map[string]float64{"durationMs": ms}}
}

func (r rv) in(cluster string) rv { r.cluster = cluster; return r }

// rvSuite is a finished suite of the given runs, held in memory.
func rvSuite(runs ...rv) *record.Suite {
	sum := &record.SuiteSummary{SchemaVersion: record.SchemaVersion, SuiteID: "mem", Status: record.SuitePassed,
		Totals: record.Outcome{Attempts: len(runs), Completed: len(runs)}}
	reps := map[string]int{}
	for i, r := range runs {
		reps[r.id]++
		exit := r.exit
		if exit == "" {
			exit = lux.ExitDone
		}
		h := r.hash
		if h == "" {
			h = "id-" + r.id
		}
		sum.Samples = append(sum.Samples, record.Sample{
			Index: i, CaseID: r.id, Repetition: reps[r.id], Cluster: r.cluster, ExitReason: exit,
			Passed: r.passed, Score: r.score, IdentityHash: h, Metrics: r.metrics,
		})
	}
	return &record.Suite{Summary: sum}
}

func rvCompare(t *testing.T, a, b *record.Suite, opts Options) *SuiteComparison {
	t.Helper()
	c, err := SuiteRecords(ctx, a, b, opts)
	require.NoError(t, err)
	_, err = json.Marshal(c)
	require.NoError(t, err, "the comparison must marshal to JSON")
	var buf bytes.Buffer
	require.NoError(t, c.WriteText(&buf))
	return c
}

func caseOf(t *testing.T, c *SuiteComparison, id string) CaseDelta {
	t.Helper()
	for _, cd := range c.Cases {
		if cd.CaseID == id {
			return cd
		}
	}
	t.Fatalf("no case %s", id)
	return CaseDelta{}
}

// t quantiles in closed form for 1 and 2 degrees of freedom.
func tq1(p float64) float64 { return math.Tan(math.Pi * (p - 0.5)) }
func tq2(p float64) float64 { return (2*p - 1) / math.Sqrt(2*p*(1-p)) }

// handT is the paired t interval of d̄ over the given per-case
// differences, with the t quantile q: d̄ ± q·sd(d)/√n.
func handT(d []float64, q float64) (est, lo, hi float64) {
	n := float64(len(d))
	for _, v := range d {
		est += v
	}
	est /= n
	ss := 0.0
	for _, v := range d {
		ss += (v - est) * (v - est)
	}
	se := math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	return est, est - q*se, est + q*se
}

// Repetitions are reduced to per-case means first, whatever their number,
// and each case weighs the same in the effect.
func TestUnequalRepetitions(t *testing.T) {
	a := rvSuite(
		rvPass("x", 100), rvPass("x", 200), rvFail("x", 600), // 3 runs: pass 2/3, 300ms
		rvPass("y", 1000),                 // 1 run: pass 1, 1000ms
		rvFail("z", 50), rvFail("z", 150), // 2 runs: pass 0, 100ms
	)
	b := rvSuite(
		rvPass("x", 250),                                                        // 1 run: pass 1, 250ms
		rvPass("y", 900), rvFail("y", 700), rvPass("y", 800), rvFail("y", 1200), // 4 runs: pass 1/2, 900ms
		rvPass("z", 100), rvFail("z", 300), rvPass("z", 200), // 3 runs: pass 2/3, 200ms
	)
	c := rvCompare(t, a, b, Options{})

	passA := []float64{2.0 / 3, 1, 0}
	passB := []float64{1, 0.5, 2.0 / 3}
	durA := []float64{300, 1000, 100}
	durB := []float64{250, 900, 200}
	for i, id := range []string{"x", "y", "z"} {
		cd := caseOf(t, c, id)
		assert.InDelta(t, passA[i], cd.PassRate.A, 1e-15, id)
		assert.InDelta(t, passB[i], cd.PassRate.B, 1e-15, id)
	}
	assert.Equal(t, Change[int]{3, 1}, caseOf(t, c, "x").Runs)
	assert.Equal(t, Change[int]{1, 4}, caseOf(t, c, "y").Runs)
	assert.Equal(t, Change[bool]{true, true}, caseOf(t, c, "x").Passed)
	assert.Equal(t, Change[bool]{true, false}, caseOf(t, c, "y").Passed, "2 of 4 is not more than half")
	assert.Equal(t, Change[bool]{false, true}, caseOf(t, c, "z").Passed)

	q := tq2(0.975) // three cases, two degrees of freedom
	for _, tc := range []struct {
		metric string
		a, b   []float64
	}{{MetricPassRate, passA, passB}, {"durationMs", durA, durB}, {MetricScore, passA, passB}} {
		d := make([]float64, 3)
		for i := range d {
			d[i] = tc.b[i] - tc.a[i]
		}
		est, lo, hi := handT(d, q)
		if tc.metric != "durationMs" {
			// Three cases are too few for a useful interval of a rate or score.
			lo, hi = -1, 1
		}
		e := effectOf(t, c, tc.metric)
		require.NotNil(t, e.Interval, e.Unavailable)
		assert.InDelta(t, est, e.Delta, 1e-12, tc.metric)
		assert.InDelta(t, lo, e.Interval.Lower, 1e-9, tc.metric)
		assert.InDelta(t, hi, e.Interval.Upper, 1e-9, tc.metric)
		assert.InDelta(t, (tc.a[0]+tc.a[1]+tc.a[2])/3, e.A, 1e-12, tc.metric)
		assert.InDelta(t, (tc.b[0]+tc.b[1]+tc.b[2])/3, e.B, 1e-12, tc.metric)
		assert.Equal(t, 3, e.Cases)
		assert.Equal(t, 3, e.Interval.Units)
		assert.False(t, e.Interval.Clustered)
	}
	// The pooled run means would be 3/6 and 6/8 for the pass rate: the
	// per-case reduction gives 5/9 and 13/18.
	assert.InDelta(t, 13.0/18-5.0/9, effectOf(t, c, MetricPassRate).Delta, 1e-12)
	assert.Equal(t, Flips{PassToFail: 1, FailToPass: 1, PValue: 1}, c.Flips)
}

// Cases pair by canonical id, not by position: the two suites list their
// cases (and interleave their repetitions) in different orders.
func TestPairingByID(t *testing.T) {
	a := rvSuite(rvPass("alpha", 10), rvPass("beta", 20), rvFail("gamma", 30), rvPass("delta", 40), rvPass("alpha", 12))
	b := rvSuite(rvPass("delta", 400), rvFail("alpha", 100), rvPass("gamma", 300), rvFail("alpha", 104), rvPass("beta", 200))
	c := rvCompare(t, a, b, Options{})
	want := map[string][2]float64{ // pass-rate a, b
		"alpha": {1, 0}, "beta": {1, 1}, "gamma": {0, 1}, "delta": {1, 1},
	}
	require.Len(t, c.Cases, 4)
	assert.Equal(t, []string{"alpha", "beta", "delta", "gamma"}, []string{c.Cases[0].CaseID, c.Cases[1].CaseID, c.Cases[2].CaseID, c.Cases[3].CaseID})
	for id, w := range want {
		cd := caseOf(t, c, id)
		assert.Equal(t, w[0], cd.PassRate.A, id)
		assert.Equal(t, w[1], cd.PassRate.B, id)
	}
	assert.Equal(t, CaseRegressed, caseOf(t, c, "alpha").Status)
	assert.Equal(t, CaseImproved, caseOf(t, c, "gamma").Status)
	// Durations: alpha 11 → 102, beta 20 → 200, delta 40 → 400, gamma 30 → 300.
	e := effectOf(t, c, "durationMs")
	assert.InDelta(t, ((102-11)+(200-20)+(400-40)+(300-30))/4.0, e.Delta, 1e-12)
	assert.InDelta(t, (11+20+40+30)/4.0, e.A, 1e-12)
	assert.Equal(t, Flips{PassToFail: 1, FailToPass: 1, PValue: 1}, c.Flips)
}

// McNemar counts b (pass → fail) and c (fail → pass) over the paired cases,
// and its p-value is the exact binomial one: for b = 7, c = 1,
// 2·(C(8,0) + C(8,1))/2⁸ = 18/256 = 0.0703125.
func TestMcNemar(t *testing.T) {
	var a, b []rv
	add := func(n int, pa, pb bool) {
		for range n {
			id := fmt.Sprintf("m%02d", len(a))
			ra, rb := rvFail(id, 1), rvFail(id, 1)
			if pa {
				ra = rvPass(id, 1)
			}
			if pb {
				rb = rvPass(id, 1)
			}
			a, b = append(a, ra), append(b, rb)
		}
	}
	add(7, true, false)
	add(1, false, true)
	add(5, true, true)
	add(3, false, false)
	c := rvCompare(t, rvSuite(a...), rvSuite(b...), Options{})
	assert.Equal(t, 7, c.Flips.PassToFail)
	assert.Equal(t, 1, c.Flips.FailToPass)
	assert.InDelta(t, 0.0703125, c.Flips.PValue, 1e-15)
	assert.Equal(t, stats.McNemarExact(7, 1), c.Flips.PValue)
	// Swapping the sides swaps b and c; the two-sided p-value is the same.
	c = rvCompare(t, rvSuite(b...), rvSuite(a...), Options{})
	assert.Equal(t, 1, c.Flips.PassToFail)
	assert.Equal(t, 7, c.Flips.FailToPass)
	assert.InDelta(t, 0.0703125, c.Flips.PValue, 1e-15)

	var buf bytes.Buffer
	require.NoError(t, c.WriteText(&buf))
	assert.Contains(t, buf.String(), "Flips: 1 pass → fail, 7 fail → pass; McNemar's exact test: p = 0.0703, not significant at 5%")
}

// A run passes when it ended done and its grading passed: an ungraded run
// and a run that did not end done (whatever its grading says) do not.
func TestPassRateDefinition(t *testing.T) {
	a := rvSuite(
		rvPass("k", 1),
		rv{id: "k", passed: nil, metrics: map[string]float64{"durationMs": 1}},                            // ungraded
		rv{id: "k", exit: lux.ExitError, passed: ptr(true), metrics: map[string]float64{"durationMs": 1}}, // errored
		rvFail("k", 1),
		rvPass("j", 1), rvPass("j", 1),
	)
	b := rvSuite(rvPass("k", 1), rvPass("j", 1), rvPass("j", 1))
	c := rvCompare(t, a, b, Options{})
	assert.Equal(t, 0.25, caseOf(t, c, "k").PassRate.A)
	assert.False(t, caseOf(t, c, "k").Passed.A)
	assert.Equal(t, 6, c.A.Runs)
	assert.Equal(t, 3, c.A.Passed)
	assert.Equal(t, 2, c.A.Failed, "the errored run and the failed run")
	assert.Equal(t, 1, c.A.Ungraded)
	assert.Equal(t, 0.5, c.A.PassRate)
	assert.Contains(t, codes(c.Warnings), WarnUngraded)
	// The score is the mean over runs that have one; k lacks it in two runs,
	// so k's score is unavailable and k is left out of the score effect.
	assert.Nil(t, caseOf(t, c, "k").Score.A)
	e := effectOf(t, c, MetricScore)
	assert.Equal(t, 1, e.Cases)
	assert.Equal(t, 1, e.Dropped)
}

// The bootstrap is reproducible: the same seed gives the same interval,
// another seed (generally) another one.
func TestBootstrapSeed(t *testing.T) {
	var a, b []rv
	for i := range 30 {
		id := fmt.Sprintf("b%02d", i)
		a = append(a, rvPass(id, float64(1000+37*(i%7))))
		if i%3 == 0 {
			b = append(b, rvFail(id, float64(1100+53*(i%5))))
		} else {
			b = append(b, rvPass(id, float64(1100+53*(i%5))))
		}
	}
	sa, sb := rvSuite(a...), rvSuite(b...)
	iv := func(seed uint64) [2]Interval {
		c := rvCompare(t, sa, sb, Options{Method: stats.PercentileBootstrap, Seed: seed})
		assert.Equal(t, Settings{Method: stats.PercentileBootstrap, Level: 0.95, Resamples: stats.DefaultResamples, Seed: seed,
			GateMetrics: []string{MetricPassRate}, Vary: []Field{}}, c.Settings)
		p, d := effectOf(t, c, MetricPassRate).Interval, effectOf(t, c, "durationMs").Interval
		require.NotNil(t, p)
		require.NotNil(t, d)
		return [2]Interval{*p, *d}
	}
	first := iv(1)
	assert.Equal(t, first, iv(1))
	assert.Equal(t, stats.DefaultResamples, first[0].Resamples)
	differ := 0
	for seed := uint64(2); seed < 6; seed++ {
		other := iv(seed)
		if other[1].Lower != first[1].Lower || other[1].Upper != first[1].Upper {
			differ++
		}
	}
	assert.GreaterOrEqual(t, differ, 3, "other seeds give other duration intervals")
	// Seed 0 is a seed like any other.
	zero := iv(0)
	assert.Equal(t, zero, iv(0))
}

// The verdict and the gate read "better" and "worse" in each metric's own
// direction: lower is better for duration, tokens and cost, higher for the
// pass rate and the score.
func TestGateDirection(t *testing.T) {
	type m = map[string]float64
	mk := func(scale float64, passes func(i int) bool) *record.Suite {
		var runs []rv
		for i := range 12 {
			id := fmt.Sprintf("g%02d", i)
			r := rv{id: id, passed: ptr(passes(i)), score: ptr(0.5 + 0.04*float64(i%3)), metrics: m{
				"durationMs": scale * float64(1000+i*10), "agent.total": scale * float64(500+i), "cost.usd": scale * (0.1 + 0.001*float64(i)),
			}}
			if !passes(i) {
				r.score = ptr(0.1)
			}
			runs = append(runs, r)
		}
		return rvSuite(runs...)
	}
	all := func(int) bool { return true }
	gates := []string{MetricPassRate, MetricScore, "durationMs", "agent.total", "cost.usd"}
	tests := []struct {
		name     string
		a, b     *record.Suite
		outcomes map[string]string
		verdict  Verdict
	}{
		{"B costs more", mk(1, all), mk(1.5, all),
			map[string]string{"durationMs": "worse", "agent.total": "worse", "cost.usd": "worse", MetricPassRate: "", MetricScore: ""}, Worse},
		{"B costs less", mk(1.5, all), mk(1, all),
			map[string]string{"durationMs": "better", "agent.total": "better", "cost.usd": "better", MetricPassRate: "", MetricScore: ""}, Better},
		{"B passes less", mk(1, all), mk(1, func(i int) bool { return i%4 == 0 }),
			map[string]string{MetricPassRate: "worse", MetricScore: "worse", "durationMs": "", "agent.total": "", "cost.usd": ""}, Worse},
		{"B passes more", mk(1, func(i int) bool { return i%4 == 0 }), mk(1, all),
			map[string]string{MetricPassRate: "better", MetricScore: "better", "durationMs": "", "agent.total": "", "cost.usd": ""}, Better},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := rvCompare(t, tt.a, tt.b, Options{GateMetrics: gates})
			for metric, want := range tt.outcomes {
				e := effectOf(t, c, metric)
				assert.Equal(t, want, e.Outcome, metric)
				if want != "" {
					assert.True(t, e.Significant, metric)
					// The interval lies on the side the outcome says.
					rose := e.Interval.Lower > 0
					assert.Equal(t, rose, e.Delta > 0, metric)
					assert.Equal(t, (want == "better") == rose, MetricBetter(metric) == "higher", metric)
				}
			}
			assert.Equal(t, tt.verdict, c.Verdict)
			assert.Equal(t, tt.verdict == Worse, c.Gate.Failed, c.Gate.Reasons)
		})
	}
	// Not gated, a worse cost is reported but neither decides nor fails.
	c := rvCompare(t, mk(1, all), mk(1.5, all), Options{})
	assert.Equal(t, "worse", effectOf(t, c, "cost.usd").Outcome)
	assert.Equal(t, NoDifference, c.Verdict)
	assert.False(t, c.Gate.Failed)
}

// The level sets the t quantile and nothing else: the 99 % interval is
// wider than the 90 % one by exactly t₀.₉₉₅/t₀.₉₅ (two degrees of freedom
// here, in closed form).
func TestLevel(t *testing.T) {
	a := rvSuite(rvPass("p", 100), rvPass("q", 200), rvPass("r", 300))
	b := rvSuite(rvPass("p", 130), rvPass("q", 260), rvPass("r", 320))
	d := []float64{30, 60, 20}
	for _, tc := range []struct {
		level float64
		q     float64
	}{{0.9, tq2(0.95)}, {0.99, tq2(0.995)}, {0, tq2(0.975)}} {
		c := rvCompare(t, a, b, Options{Level: tc.level})
		e := effectOf(t, c, "durationMs")
		require.NotNil(t, e.Interval)
		est, lo, hi := handT(d, tc.q)
		assert.InDelta(t, est, e.Delta, 1e-12)
		assert.InDelta(t, lo, e.Interval.Lower, 1e-9, "level %v", tc.level)
		assert.InDelta(t, hi, e.Interval.Upper, 1e-9, "level %v", tc.level)
		want := tc.level
		if want == 0 {
			want = 0.95
		}
		assert.Equal(t, want, e.Interval.Level)
		assert.Equal(t, want, c.Settings.Level)
	}
	w := func(level float64) float64 {
		e := effectOf(t, rvCompare(t, a, b, Options{Level: level}), "durationMs")
		return e.Interval.Upper - e.Interval.Lower
	}
	assert.InDelta(t, tq2(0.995)/tq2(0.95), w(0.99)/w(0.9), 1e-9)
	// At 90 % the 30 ms rise is significant (lower bound 36.67 − 2.92·12.02 > 0); at 99 % it is not.
	assert.True(t, effectOf(t, rvCompare(t, a, b, Options{Level: 0.9}), "durationMs").Significant)
	assert.False(t, effectOf(t, rvCompare(t, a, b, Options{Level: 0.99}), "durationMs").Significant)
}

// Two suites with no case in common are not comparable, and say why;
// nothing fails.
func TestEveryCaseUnmatched(t *testing.T) {
	c := rvCompare(t, rvSuite(rvPass("a1", 1), rvPass("a2", 1)), rvSuite(rvPass("b1", 1), rvFail("b2", 1)), Options{})
	assert.Equal(t, NotComparable, c.Verdict)
	assert.True(t, c.Gate.Failed)
	assert.Equal(t, []string{"no case ran on both sides with a matching identity"}, c.Reasons)
	assert.Equal(t, []string{"a1", "a2"}, c.OnlyA)
	assert.Equal(t, []string{"b1", "b2"}, c.OnlyB)
	assert.Equal(t, CaseCounts{OnlyA: 2, OnlyB: 2}, c.Counts)
	assert.Empty(t, c.Cases)
	assert.Equal(t, Flips{PValue: 1}, c.Flips)
	assert.Contains(t, codes(c.Warnings), WarnUnmatchedCases)
	for _, e := range c.Effects {
		assert.Nil(t, e.Interval, e.Metric)
		assert.NotEmpty(t, e.Unavailable, e.Metric)
		assert.Zero(t, e.Cases, e.Metric)
	}
}

// One paired case cannot give an interval (the unit count is 1): each
// effect is unavailable and says why; the comparison itself goes on.
func TestOnePairedCase(t *testing.T) {
	c := rvCompare(t, rvSuite(rvPass("solo", 100), rvPass("solo", 120), rvPass("gone", 1)),
		rvSuite(rvFail("solo", 300), rvPass("new", 1)), Options{})
	assert.Equal(t, 1, c.Counts.Paired)
	e := effectOf(t, c, MetricPassRate)
	assert.Nil(t, e.Interval)
	assert.Equal(t, 1, e.Cases)
	assert.Equal(t, -1.0, e.Delta)
	assert.Contains(t, e.Unavailable, "too few independent units")
	d := effectOf(t, c, "durationMs")
	assert.Equal(t, 190.0, d.Delta)
	assert.Nil(t, d.Interval)
	// 2 runs → 1 run: not even all → none could be significant (p = 1/3),
	// so the fall counts untested.
	assert.Equal(t, Worse, c.Verdict)
	assert.True(t, c.Gate.Failed)
	assert.Equal(t, GateUntestedFalls, caseOf(t, c, "solo").GateRule)
	assert.Contains(t, strings.Join(c.Reasons, "\n"), "pass rate: no interval (too few independent units")
	assert.Contains(t, codes(c.Warnings), WarnFewCases)
	assert.Equal(t, 1, c.Flips.PassToFail)
	assert.Equal(t, 1.0, c.Flips.PValue)
	// The strict gate still sees the case that regressed.
	c = rvCompare(t, rvSuite(rvPass("solo", 100)), rvSuite(rvFail("solo", 300)), Options{Strict: true})
	assert.True(t, c.Gate.Failed)
}

// A suite compared with itself, its samples listed in another order, has
// zero effects, no flips and no regression: pairing is by case id, so
// any mispairing would show as a nonzero effect on these varied data.
func TestSelfShuffled(t *testing.T) {
	var runs []rv
	for i := range 9 {
		id := fmt.Sprintf("s%d", i)
		for r := range 1 + i%3 {
			x := rvPass(id, float64(100*i+7*r))
			if (i+r)%4 == 0 {
				x = rvFail(id, float64(100*i+7*r))
			}
			runs = append(runs, x.in(fmt.Sprint("k", i%4)))
		}
	}
	rev := make([]rv, len(runs))
	for i, r := range runs {
		rev[len(runs)-1-i] = r
	}
	c := rvCompare(t, rvSuite(runs...), rvSuite(rev...), Options{AllMetrics: true})
	assert.Equal(t, NoDifference, c.Verdict)
	assert.False(t, c.Gate.Failed)
	assert.Equal(t, Flips{PValue: 1}, c.Flips)
	assert.Equal(t, 4, c.Counts.Clusters)
	for _, e := range c.Effects {
		if e.Cases == 0 {
			continue
		}
		assert.Zero(t, e.Delta, e.Metric)
		require.NotNil(t, e.Interval, e.Metric)
		want := [2]float64{0, 0}
		if bounded(e.Unit) {
			want = [2]float64{-1, 1} // four clusters are too few for a useful interval
		}
		assert.Equal(t, want, [2]float64{e.Interval.Lower, e.Interval.Upper}, e.Metric)
		assert.False(t, e.Significant, e.Metric)
	}
	// Against a copy whose durations moved, the same pairing shows the move.
	moved := make([]rv, len(rev))
	for i, r := range rev {
		r.metrics = map[string]float64{"durationMs": r.metrics["durationMs"] + float64(len(r.id))*3}
		moved[i] = r
	}
	assert.InDelta(t, 6.0, effectOf(t, rvCompare(t, rvSuite(runs...), rvSuite(moved...), Options{}), "durationMs").Delta, 1e-12)
}

// Every warning of the comparison and of its effects is in the text.
func TestWarningsInText(t *testing.T) {
	var a, b []rv
	for i := range 6 {
		id := fmt.Sprintf("w%d", i)
		a = append(a, rvPass(id, float64(10*i)).in(fmt.Sprint("k", i%3)))
		r := rvFail(id, float64(10*i+i))
		if i%2 == 0 {
			r = rv{id: id, passed: nil, metrics: map[string]float64{"durationMs": float64(10*i + i)}}
		}
		b = append(b, r.in(fmt.Sprint("k", i%3)))
	}
	a = append(a, rvPass("onlyA1", 1), rvPass("onlyA2", 1), rvPass("onlyA3", 1))
	c := rvCompare(t, rvSuite(a...), rvSuite(b...), Options{})
	got := codes(c.Warnings)
	for _, code := range []string{WarnUngraded, WarnUnmatchedCases, WarnFewCases, WarnMcNemarClusters} {
		assert.Contains(t, got, code)
	}
	assert.Contains(t, codes(effectOf(t, c, MetricPassRate).Warnings), WarnFewClusters)
	var buf bytes.Buffer
	require.NoError(t, c.WriteText(&buf))
	for _, w := range c.Warnings {
		assert.Contains(t, buf.String(), w.Message)
	}
	for _, e := range c.Effects {
		for _, w := range e.Warnings {
			assert.Contains(t, buf.String(), w.Message)
		}
	}
}
