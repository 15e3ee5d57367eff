package compare

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var ctx = context.Background()

// withDuration sets a run's duration in milliseconds.
func withDuration(s spec, ms int) spec {
	prev := s.mutate
	s.mutate = func(m *record.Metadata) {
		if prev != nil {
			prev(m)
		}
		m.EndedAt = m.StartedAt.Add(time.Duration(ms) * time.Millisecond)
	}
	return s
}

// grid builds runs for cases 0..n-1 with reps repetitions each.
func grid(n, reps int, f func(i, rep int) spec) []spec {
	var out []spec
	for i := range n {
		for r := range reps {
			out = append(out, f(i, r))
		}
	}
	return out
}

func caseID(i int) string { return fmt.Sprintf("c%02d", i) }

func effectOf(t *testing.T, c *SuiteComparison, metric string) Effect {
	t.Helper()
	for _, e := range c.Effects {
		if e.Metric == metric {
			return e
		}
	}
	t.Fatalf("no effect for %s", metric)
	return Effect{}
}

// The paired interval of every metric is stats.Paired over the per-case
// means, whatever the method and with or without clusters.
func TestSuiteEffectsEqualStatsPaired(t *testing.T) {
	const n, reps = 12, 3
	passA := func(i, r int) bool { return (i+r)%3 != 0 }
	passB := func(i, r int) bool { return (i*r)%4 != 1 }
	durA := func(i, r int) int { return 1000 + 37*i + 11*r }
	durB := func(i, r int) int { return 900 + 41*i + 7*r*r }
	cluster := func(i int) string { return []string{"x", "y", "z", "w"}[i%4] }
	mk := func(passes func(i, r int) bool, dur func(i, r int) int) []spec {
		return grid(n, reps, func(i, r int) spec {
			s := fail(caseID(i), cluster(i))
			if passes(i, r) {
				s = pass(caseID(i), cluster(i))
			}
			return withDuration(s, dur(i, r))
		})
	}
	root := t.TempDir()
	a, _ := writeSuite(t, root, mk(passA, durA), suiteOpts{summary: true})
	b, _ := writeSuite(t, root, mk(passB, durB), suiteOpts{summary: true})

	var before, after, beforeDur, afterDur []float64
	var labels []string
	for i := range n {
		var pa, pb, da, db float64
		for r := range reps {
			if passA(i, r) {
				pa++
			}
			if passB(i, r) {
				pb++
			}
			da += float64(durA(i, r))
			db += float64(durB(i, r))
		}
		before, after = append(before, pa/reps), append(after, pb/reps)
		beforeDur, afterDur = append(beforeDur, da/reps), append(afterDur, db/reps)
		labels = append(labels, cluster(i))
	}
	for _, cfg := range []stats.Config{{}, {Method: stats.Normal, Level: 0.9}, {Method: stats.PercentileBootstrap, Seed: 7, Resamples: 3000}} {
		t.Run(string(cfg.Method), func(t *testing.T) {
			c, err := Suites(ctx, a, b, Options{Method: cfg.Method, Level: cfg.Level, Seed: cfg.Seed, Resamples: cfg.Resamples})
			require.NoError(t, err)
			for _, tc := range []struct {
				metric        string
				before, after []float64
			}{{MetricPassRate, before, after}, {"durationMs", beforeDur, afterDur}} {
				want, err := stats.Paired(tc.before, tc.after, labels, cfg)
				require.NoError(t, err)
				e := effectOf(t, c, tc.metric)
				require.NotNil(t, e.Interval, e.Unavailable)
				assert.InDelta(t, want.Estimate, e.Delta, 1e-12, tc.metric)
				wantWarnings := len(want.Warnings)
				if tc.metric == MetricPassRate {
					// Four clusters are too few for a useful interval of a rate.
					want.Lower, want.Upper = -1, 1
					wantWarnings++
					assert.True(t, e.Interval.Clipped)
					assert.False(t, e.Significant)
				}
				assert.InDelta(t, want.Lower, e.Interval.Lower, 1e-12, tc.metric)
				assert.InDelta(t, want.Upper, e.Interval.Upper, 1e-12, tc.metric)
				assert.Equal(t, want.Units, e.Interval.Units)
				assert.Equal(t, want.Method, e.Interval.Method)
				assert.True(t, e.Interval.Clustered)
				assert.Equal(t, n, e.Cases)
				assert.InDelta(t, mean(tc.before), e.A, 1e-12)
				assert.InDelta(t, mean(tc.after), e.B, 1e-12)
				assert.Len(t, e.Warnings, wantWarnings)
			}
			assert.Equal(t, 4, c.Counts.Clusters)
		})
	}
}

// Cases that share clusters and move together give a wider interval than
// the same numbers treated as independent cases.
func TestSuiteClustersWidenInterval(t *testing.T) {
	mk := func(clustered bool, b bool) []spec {
		return grid(24, 1, func(i, _ int) spec {
			cl := ""
			if clustered {
				cl = fmt.Sprintf("repo-%d", i/6) // 4 clusters of 6
			}
			// In B, clusters 0 and 1 lose most cases, clusters 2 and 3 none.
			if b && i/6 < 2 && i%6 != 0 {
				return fail(caseID(i), cl)
			}
			return pass(caseID(i), cl)
		})
	}
	root := t.TempDir()
	width := map[bool]float64{}
	for _, clustered := range []bool{false, true} {
		a, _ := writeSuite(t, root, mk(clustered, false), suiteOpts{summary: true})
		b, _ := writeSuite(t, root, mk(clustered, true), suiteOpts{summary: true})
		c, err := Suites(ctx, a, b, Options{})
		require.NoError(t, err)
		e := effectOf(t, c, MetricPassRate)
		require.NotNil(t, e.Interval)
		assert.InDelta(t, -10.0/24, e.Delta, 1e-12)
		assert.Equal(t, clustered, e.Interval.Clustered)
		width[clustered] = e.Interval.Upper - e.Interval.Lower
		if clustered {
			assert.Equal(t, 4, e.Interval.Units)
			assert.Contains(t, codes(e.Warnings), WarnFewClusters)
			assert.Contains(t, codes(c.Warnings), WarnMcNemarClusters)
			assert.False(t, e.Significant, "four clusters cannot show it")
			assert.False(t, checkOf(t, c.Gate, GateMetric).Failed, "four clusters cannot show it")
			assert.Equal(t, []string{GateUntestedFalls}, failedRules(c.Gate), "one run a case: each fall counts untested")
		} else {
			assert.Equal(t, 24, e.Interval.Units)
			assert.Equal(t, "worse", e.Outcome, "24 independent cases do")
			assert.True(t, checkOf(t, c.Gate, GateMetric).Failed, "24 independent cases do")
		}
	}
	assert.Greater(t, width[true], 1.5*width[false])
}

// failedRules are the rules of a gate that failed, in order.
func failedRules(g Gate) []string {
	var out []string
	for _, ch := range g.Checks {
		if ch.Failed {
			out = append(out, ch.Rule)
		}
	}
	return out
}

func codes(ws []Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Code)
	}
	return out
}

func TestSuiteComparedWithItself(t *testing.T) {
	root := t.TempDir()
	runs := grid(10, 2, func(i, r int) spec {
		s := pass(caseID(i), fmt.Sprint(i%3))
		if (i+r)%4 == 0 {
			s = fail(caseID(i), fmt.Sprint(i%3))
		}
		return withDuration(s, 1000+100*i+r)
	})
	dir, _ := writeSuite(t, root, runs, suiteOpts{summary: true, runs: true})
	for _, method := range []stats.Method{"", stats.PercentileBootstrap} {
		c, err := Suites(ctx, dir, dir, Options{Method: method, AllMetrics: true})
		require.NoError(t, err)
		assert.Equal(t, NoDifference, c.Verdict)
		assert.False(t, c.Gate.Failed)
		assert.Empty(t, c.Gate.Reasons)
		assert.Empty(t, c.Mismatches)
		assert.Equal(t, 10, c.Counts.Paired)
		assert.Equal(t, Flips{PValue: 1}, c.Flips)
		assert.Greater(t, len(c.Effects), 20, "every metric")
		for _, e := range c.Effects {
			if e.Cases == 0 {
				continue // metrics no run has (cost is reported by every run here; failure rate too)
			}
			assert.Zero(t, e.Delta, e.Metric)
			require.NotNil(t, e.Interval, e.Metric)
			if bounded(e.Unit) {
				// Three clusters are too few for a useful interval of a rate or score.
				assert.Equal(t, -1.0, e.Interval.Lower, e.Metric)
				assert.Equal(t, 1.0, e.Interval.Upper, e.Metric)
			} else {
				assert.Zero(t, e.Interval.Lower, e.Metric)
				assert.Zero(t, e.Interval.Upper, e.Metric)
			}
			assert.False(t, e.Significant, e.Metric)
		}
		for _, cd := range c.Cases {
			assert.Equal(t, CaseUnchanged, cd.Status)
		}
	}
}

func TestSuiteGate(t *testing.T) {
	allPass := grid(40, 1, func(i, _ int) spec { return pass(caseID(i), "") })
	tests := []struct {
		name    string
		b       func(i int) bool // passes in B
		opts    Options
		verdict Verdict
		gate    bool
		reason  string
	}{
		{"half fail", func(i int) bool { return i%2 == 0 }, Options{}, Worse, true, "pass rate fell (95% t interval excludes 0): -50.0 pts"},
		// One run a case: no per-case test can show a fall, so the one
		// that fell fails the gate untested, whatever the interval says.
		{"one flip", func(i int) bool { return i != 7 }, Options{}, Worse, true, "c07 fell with too few runs to test (no test possible, so any fall counts)"},
		{"one flip", func(i int) bool { return i != 7 }, Options{}, Worse, true, "pass rate: no significant change (95% t interval includes 0): -2.5 pts"},
		{"one flip, strict", func(i int) bool { return i != 7 }, Options{Strict: true}, Worse, true, ""},
		{"none fail", func(int) bool { return true }, Options{}, NoDifference, false, "pass rate: no change in any case (all 40 paired cases have the same value on both sides; no test needed)"},
	}
	root := t.TempDir()
	a, _ := writeSuite(t, root, allPass, suiteOpts{summary: true})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := writeSuite(t, root, grid(40, 1, func(i, _ int) spec {
				if tt.b(i) {
					return pass(caseID(i), "")
				}
				return fail(caseID(i), "")
			}), suiteOpts{summary: true})
			c, err := Suites(ctx, a, b, tt.opts)
			require.NoError(t, err)
			assert.Equal(t, tt.verdict, c.Verdict)
			assert.Equal(t, tt.gate, c.Gate.Failed, c.Gate.Reasons)
			if tt.reason != "" {
				assert.Contains(t, strings.Join(c.Reasons, "\n"), tt.reason)
			}
			if tt.opts.Strict && tt.gate {
				assert.Contains(t, c.Gate.Reasons, "strict: 1 case regressed: c07")
			}
		})
	}

	// The other way round the same data is a significant improvement.
	b, _ := writeSuite(t, root, grid(40, 1, func(i, _ int) spec {
		if i%2 == 0 {
			return pass(caseID(i), "")
		}
		return fail(caseID(i), "")
	}), suiteOpts{summary: true})
	c, err := Suites(ctx, b, a, Options{})
	require.NoError(t, err)
	assert.Equal(t, Better, c.Verdict)
	assert.False(t, c.Gate.Failed)
	assert.Equal(t, 20, c.Flips.FailToPass)
	assert.InDelta(t, stats.McNemarExact(0, 20), c.Flips.PValue, 1e-15)
}

func TestSuitePassRateTolerance(t *testing.T) {
	root := t.TempDir()
	a, _ := writeSuite(t, root, grid(10, 2, func(i, _ int) spec { return pass(caseID(i), "") }), suiteOpts{summary: true})
	// c03 passes one run of two in B, c05 none.
	b, _ := writeSuite(t, root, grid(10, 2, func(i, r int) spec {
		if i == 3 && r == 0 || i == 5 {
			return fail(caseID(i), "")
		}
		return pass(caseID(i), "")
	}), suiteOpts{summary: true})
	for _, tt := range []struct {
		tolerance float64
		regressed []string
	}{{0, []string{"c03", "c05"}}, {0.5, []string{"c05"}}} {
		c, err := Suites(ctx, a, b, Options{Strict: true, PassRateTolerance: tt.tolerance})
		require.NoError(t, err)
		var regressed []string
		for _, cd := range c.Cases {
			if cd.Status == CaseRegressed {
				regressed = append(regressed, cd.CaseID)
			}
		}
		assert.Equal(t, tt.regressed, regressed, "tolerance %v", tt.tolerance)
		assert.Equal(t, len(tt.regressed) > 0, c.Gate.Failed, "tolerance %v", tt.tolerance)
		assert.Equal(t, 2, c.Flips.PassToFail, "1 of 2 runs is not a majority: c03's verdict flips too")
	}
}

func TestSuiteGateMetrics(t *testing.T) {
	root := t.TempDir()
	mk := func(ms int) []spec {
		return grid(30, 1, func(i, _ int) spec { return withDuration(pass(caseID(i), ""), ms+i%5) })
	}
	a, _ := writeSuite(t, root, mk(1000), suiteOpts{summary: true})
	b, _ := writeSuite(t, root, mk(1500), suiteOpts{summary: true})
	c, err := Suites(ctx, a, b, Options{})
	require.NoError(t, err)
	assert.Equal(t, NoDifference, c.Verdict, "duration is reported, not gated, by default")
	assert.Equal(t, "worse", effectOf(t, c, "durationMs").Outcome)

	c, err = Suites(ctx, a, b, Options{GateMetrics: []string{MetricPassRate, "durationMs"}})
	require.NoError(t, err)
	assert.Equal(t, Worse, c.Verdict)
	assert.True(t, c.Gate.Failed)
	assert.Contains(t, c.Gate.Reasons[0], "rose: +500ms")
	assert.Equal(t, "95% clopper-pearson interval", checkOf(t, c.Gate, GateMetric).Test, "pass rate has no spread: the exact bound")
}

func TestSuiteIdentity(t *testing.T) {
	root := t.TempDir()
	runs := func(mutate func(i, r int, m *record.Metadata)) []spec {
		return grid(6, 2, func(i, r int) spec {
			s := pass(caseID(i), "")
			if mutate != nil {
				s.mutate = func(m *record.Metadata) { mutate(i, r, m) }
			}
			return s
		})
	}
	a, _ := writeSuite(t, root, runs(func(i, r int, m *record.Metadata) {
		if i == 2 && r == 1 {
			m.Driver.AgentVersion = "1.1" // a repetition of A ran another agent
		}
	}), suiteOpts{summary: true, runs: true})
	b, _ := writeSuite(t, root, runs(func(i, r int, m *record.Metadata) {
		m.Provenance.Source.Git.Commit = "def456" // every case: a new commit
		if i == 4 {
			m.Provenance.Runtime.Commands[0].Version = "2.0"
		}
	}), suiteOpts{summary: true, runs: true})

	c, err := Suites(ctx, a, b, Options{Vary: []Field{FieldSource}})
	require.NoError(t, err)
	assert.Equal(t, NotComparable, c.Verdict)
	assert.True(t, c.Gate.Failed)
	assert.Equal(t, []string{"2 cases have an identity mismatch (first: c02: driver (within A) differs)"}, c.Reasons)
	require.Len(t, c.Mismatches, 2)
	assert.Equal(t, "c02", c.Mismatches[0].CaseID)
	var within *Mismatch
	for i, m := range c.Mismatches[0].Mismatches {
		if m.Within == "a" {
			within = &c.Mismatches[0].Mismatches[i]
		}
	}
	require.NotNil(t, within)
	assert.Equal(t, FieldDriver, within.Field)
	assert.Regexp(t, `\+\s+AgentVersion:\s+"1.1",`, within.Diff)
	assert.Equal(t, "c04", c.Mismatches[1].CaseID)
	fields := map[Field]bool{}
	for _, m := range c.Mismatches[1].Mismatches {
		fields[m.Field] = !m.Varied
	}
	assert.Equal(t, map[Field]bool{FieldSource: false, FieldRuntime: true}, fields)
	assert.Equal(t, 4, c.Counts.Paired)
	assert.Equal(t, 2, c.Counts.Mismatched)
	assert.Equal(t, []FieldCount{{FieldSource, 4}}, c.Varied)
	assert.Equal(t, 4, effectOf(t, c, MetricPassRate).Cases, "mismatched cases are left out")

	// Without Vary the new commit alone makes every case a mismatch.
	c, err = Suites(ctx, a, b, Options{})
	require.NoError(t, err)
	assert.Equal(t, 6, c.Counts.Mismatched)
	assert.Contains(t, c.Reasons, "no case ran on both sides with a matching identity")

	// Varying everything that differs pairs every case.
	c, err = Suites(ctx, a, b, Options{Vary: []Field{FieldSource, FieldRuntime, FieldDriver}})
	require.NoError(t, err)
	assert.Equal(t, NoDifference, c.Verdict)
	assert.Equal(t, 6, c.Counts.Paired)
	assert.Equal(t, []FieldCount{{FieldRuntime, 1}, {FieldSource, 6}, {FieldDriver, 1}}, c.Varied)
}

func TestSuiteIdentityWithoutRunRecords(t *testing.T) {
	root := t.TempDir()
	a, _ := writeSuite(t, root, []spec{pass("x", ""), pass("y", "")}, suiteOpts{summary: true})
	b, _ := writeSuite(t, root, []spec{
		{id: "x", passed: ptr(true), mutate: func(m *record.Metadata) { m.Provenance.Host.OS = "darwin" }},
		pass("y", ""),
	}, suiteOpts{summary: true})
	c, err := Suites(ctx, a, b, Options{})
	require.NoError(t, err)
	require.Len(t, c.Mismatches, 1)
	m := c.Mismatches[0].Mismatches[0]
	assert.Equal(t, FieldIdentityHash, m.Field)
	assert.Contains(t, m.Note, "the fields that differ are unknown")
	assert.Contains(t, m.Note, "no such file")
}

func TestSuiteUnmatchedCases(t *testing.T) {
	root := t.TempDir()
	a, _ := writeSuite(t, root, grid(10, 1, func(i, _ int) spec { return pass(caseID(i), "") }), suiteOpts{summary: true})
	b, _ := writeSuite(t, root, append(grid(6, 1, func(i, _ int) spec { return pass(caseID(i), "") }), pass("new", "")), suiteOpts{summary: true})
	c, err := Suites(ctx, a, b, Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"c06", "c07", "c08", "c09"}, c.OnlyA)
	assert.Equal(t, []string{"new"}, c.OnlyB)
	assert.Equal(t, CaseCounts{Paired: 6, OnlyA: 4, OnlyB: 1, Clusters: 6}, c.Counts)
	assert.Contains(t, codes(c.Warnings), WarnUnmatchedCases)
	assert.Contains(t, codes(c.Warnings), WarnFewCases)
	assert.Equal(t, 6, effectOf(t, c, MetricPassRate).Cases)
}

// Harness tokens the runs did not spend are zero, not unavailable, though
// record.RunMetrics leaves them out.
func TestSuiteHarnessZero(t *testing.T) {
	root := t.TempDir()
	noHarness := func(m *record.Metadata) { m.Usage.Answerer, m.Usage.Judge = lux.ModelUsage{}, lux.ModelUsage{} }
	a, _ := writeSuite(t, root, grid(4, 1, func(i, _ int) spec { s := pass(caseID(i), ""); s.mutate = noHarness; return s }), suiteOpts{summary: true})
	b, _ := writeSuite(t, root, grid(4, 1, func(i, _ int) spec { return pass(caseID(i), "") }), suiteOpts{summary: true})
	c, err := Suites(ctx, a, b, Options{})
	require.NoError(t, err)
	e := effectOf(t, c, "harness.total")
	require.NotNil(t, e.Interval, e.Unavailable)
	assert.Equal(t, 0.0, e.A)
	assert.Equal(t, 12.0, e.B)
}

func TestSuiteUsageUnavailable(t *testing.T) {
	root := t.TempDir()
	a, _ := writeSuite(t, root, grid(5, 2, func(i, _ int) spec { return pass(caseID(i), "") }), suiteOpts{summary: true})
	b, _ := writeSuite(t, root, grid(5, 2, func(i, r int) spec {
		s := pass(caseID(i), "")
		s.mutate = func(m *record.Metadata) { m.Usage.Agent, m.Usage.AgentCostUSD = nil, nil }
		if i == 0 && r == 0 {
			s.mutate = nil // one run of one case did report
		}
		return s
	}), suiteOpts{summary: true})
	c, err := Suites(ctx, a, b, Options{})
	require.NoError(t, err)
	e := effectOf(t, c, "agent.total")
	assert.Nil(t, e.Interval)
	assert.Equal(t, 0, e.Cases)
	assert.Equal(t, 5, e.Dropped)
	assert.Equal(t, "no paired case has it in every run (A: 10 of 10 runs have it, B: 1 of 10)", e.Unavailable)
	var buf bytes.Buffer
	require.NoError(t, c.WriteText(&buf))
	assert.Regexp(t, `(?m)^  agent tokens +unavailable  unavailable`, buf.String())
	assert.Contains(t, buf.String(), "  agent tokens: unavailable: no paired case has it in every run")
	assert.NotContains(t, buf.String(), "agent tokens       420")
}

// A suite read from its summary, from its manifest and run records, from
// memory, and its runs listed one by one, all compare the same.
func TestSuiteReadPaths(t *testing.T) {
	root := t.TempDir()
	mk := func(b bool) []spec {
		return grid(8, 2, func(i, r int) spec {
			s := pass(caseID(i), fmt.Sprint(i%3))
			if b && (i+r)%3 == 0 || !b && i == 5 {
				s = fail(caseID(i), fmt.Sprint(i%3))
			}
			if i == 6 && r == 1 {
				s.passed, s.score = nil, nil // ungraded
			}
			return withDuration(s, 500+i*30+r)
		})
	}
	a, sa := writeSuite(t, root, mk(false), suiteOpts{summary: true, runs: true})
	b, sb := writeSuite(t, root, mk(true), suiteOpts{summary: true, runs: true})
	opts := Options{AllMetrics: true}
	want, err := Suites(ctx, a, b, opts)
	require.NoError(t, err)
	assert.Contains(t, codes(want.Warnings), WarnUngraded)
	assert.Equal(t, 1, want.A.Ungraded)

	runDirs := func(s *record.Suite) []string {
		var out []string
		for i := range s.Manifest.Items {
			out = append(out, s.RunDir(i))
		}
		return out
	}
	noSummary := func(s *record.Suite) *record.Suite { return &record.Suite{Dir: s.Dir, Manifest: s.Manifest} }
	ignore := cmpopts.IgnoreFields(SuiteInfo{}, "Dir", "SuiteID", "Status")
	paths := map[string]func() (*SuiteComparison, error){
		"records":            func() (*SuiteComparison, error) { return SuiteRecords(ctx, sa, sb, opts) },
		"records no summary": func() (*SuiteComparison, error) { return SuiteRecords(ctx, noSummary(sa), noSummary(sb), opts) },
		"run sets":           func() (*SuiteComparison, error) { return RunSets(ctx, runDirs(sa), runDirs(sb), opts) },
	}
	for name, f := range paths {
		t.Run(name, func(t *testing.T) {
			got, err := f()
			require.NoError(t, err)
			if diff := cmp.Diff(want, got, ignore); diff != "" {
				t.Errorf("(-summary +%s):\n%s", name, diff)
			}
		})
	}
}

// Runs from a dirty repository without a working-tree snapshot cannot be
// shown to be repetitions: each has an identity of its own.
func TestSuiteDirtySource(t *testing.T) {
	root := t.TempDir()
	clean := grid(3, 2, func(i, _ int) spec { return pass(caseID(i), "") })
	dirty := grid(3, 2, func(i, _ int) spec {
		s := pass(caseID(i), "")
		s.mutate = func(m *record.Metadata) { m.Provenance.Source.Git.Dirty = true }
		return s
	})
	a, _ := writeSuite(t, root, clean, suiteOpts{summary: true, runs: true})
	b, _ := writeSuite(t, root, dirty, suiteOpts{summary: true, runs: true})
	c, err := Suites(ctx, a, b, Options{})
	require.NoError(t, err)
	assert.Equal(t, NotComparable, c.Verdict)
	require.Len(t, c.Mismatches, 3)
	ms := c.Mismatches[0].Mismatches
	require.Len(t, ms, 2, "across the sides, and between B's two runs")
	assert.Equal(t, FieldSource, ms[0].Field)
	assert.Empty(t, ms[0].Within)
	assert.Contains(t, ms[0].Note, "dirty and no working-tree snapshot")
	assert.Equal(t, "b", ms[1].Within)

	c, err = Suites(ctx, a, b, Options{Vary: []Field{FieldSource}})
	require.NoError(t, err)
	assert.Equal(t, NoDifference, c.Verdict)
	assert.Equal(t, []FieldCount{{FieldSource, 3}}, c.Varied)
}
