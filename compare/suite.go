package compare

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/stats"
)

// SuiteComparison compares suite B with suite A case by case. Its JSON
// form is documented in the package documentation.
type SuiteComparison struct {
	A SuiteInfo `json:"a"`
	B SuiteInfo `json:"b"`
	// Verdict is decided by the gate metrics' paired effects; Reasons say
	// why, one line each.
	Verdict  Verdict  `json:"verdict"`
	Reasons  []string `json:"reasons"`
	Gate     Gate     `json:"gate"`
	Settings Settings `json:"settings"`
	// Counts counts the cases: paired, on one side only, and excluded for
	// an identity mismatch.
	Counts CaseCounts `json:"counts"`
	OnlyA  []string   `json:"onlyA"`
	OnlyB  []string   `json:"onlyB"`
	// Mismatches are the cases left out for identity fields that differ
	// and are not varied; any makes the comparison not comparable.
	Mismatches []CaseMismatch `json:"mismatches"`
	// Varied counts, per varied field, the paired cases where it differed.
	Varied []FieldCount `json:"varied"`
	// Cases are the paired cases, sorted by id.
	Cases   []CaseDelta `json:"cases"`
	Effects []Effect    `json:"effects"`
	Flips   Flips       `json:"flips"`
	// Warnings are caveats about the comparison as a whole; each effect
	// carries its own.
	Warnings []Warning `json:"warnings"`
	// EffectWarnings are the effects' warnings, each said once with the
	// metrics it concerns: what a report shows instead of repeating a
	// caveat under every metric.
	EffectWarnings []EffectWarning `json:"effectWarnings"`
}

// SuiteInfo describes one side: where it came from and how its runs went.
type SuiteInfo struct {
	Dir      string             `json:"dir,omitempty"`
	SuiteID  string             `json:"suiteId,omitempty"`
	Status   record.SuiteStatus `json:"status,omitempty"`
	Attempts int                `json:"attempts"` // runs planned, pending ones included
	Runs     int                `json:"runs"`     // completed runs
	Cases    int                `json:"cases"`
	Passed   int                `json:"passed"`
	// Passed, Failed, Errored, Cancelled and Ungraded count the runs by
	// their record.Verdict. The last three have no verdict on the agent;
	// the pass rate counts them as not passed.
	Failed    int     `json:"failed"`
	Errored   int     `json:"errored"`
	Cancelled int     `json:"cancelled"`
	Ungraded  int     `json:"ungraded"`
	Pending   int     `json:"pending"`  // never ran (the suite was cancelled)
	PassRate  float64 `json:"passRate"` // passed / runs
}

// Settings are the options a suite comparison ran with, defaults applied.
type Settings struct {
	Method            stats.Method `json:"method"`
	Level             float64      `json:"level"`
	Resamples         int          `json:"resamples,omitempty"`
	Seed              uint64       `json:"seed,omitempty"`
	PassRateTolerance float64      `json:"passRateTolerance"`
	Strict            bool         `json:"strict"`
	GateMetrics       []string     `json:"gateMetrics"`
	Vary              []Field      `json:"vary"`
}

// MarshalJSON writes the settings with the bootstrap's seed even when it
// is 0, so that the intervals can be reproduced; without the bootstrap,
// resamples and seed are left out.
func (s Settings) MarshalJSON() ([]byte, error) {
	type plain Settings
	out := struct {
		plain
		Seed *uint64 `json:"seed,omitempty"`
	}{plain: plain(s)}
	if s.Method == stats.PercentileBootstrap {
		out.Seed = &s.Seed
	}
	return json.Marshal(out)
}

// CaseCounts counts the cases of a suite comparison.
type CaseCounts struct {
	Paired     int `json:"paired"`
	OnlyA      int `json:"onlyA"`
	OnlyB      int `json:"onlyB"`
	Mismatched int `json:"mismatched"`
	Clusters   int `json:"clusters"` // independent units among the paired cases (cases when none declares a cluster)
}

// CaseMismatch is a case left out for the identity fields that differ.
type CaseMismatch struct {
	CaseID     string     `json:"caseId"`
	Mismatches []Mismatch `json:"mismatches"`
}

// FieldCount is how many cases a varied field differed in.
type FieldCount struct {
	Field Field `json:"field"`
	Cases int   `json:"cases"`
}

// CaseDelta is one paired case: its repetitions reduced to per-case values.
type CaseDelta struct {
	CaseID string `json:"caseId"`
	// Cluster is the independent unit the case counts in: its cluster
	// label, or, when A and B label cases differently, the labels joined
	// by "+" of every cluster it is connected to on either side. Empty:
	// a unit of its own.
	Cluster  string          `json:"cluster,omitempty"`
	Runs     Change[int]     `json:"runs"`
	PassRate Change[float64] `json:"passRate"`
	// Passed is the case's verdict on a side: more than half its runs passed.
	Passed Change[bool] `json:"passed"`
	// Score is the mean case score; null unless every run of the side has one.
	Score Change[*float64] `json:"score"`
	// Status is "regressed" when the pass rate fell by more than
	// Settings.PassRateTolerance, "improved" when it rose by more, else
	// "unchanged".
	Status string `json:"status"`
	// FallP is the one-sided p-value of Fisher's exact test that the
	// case's pass rate fell, over its own runs (stats.FisherExactLess;
	// 3/3 → 0/3 gives 0.05); RiseP the same for a rise. Each is 1 when the
	// pass rate did not move that way.
	FallP float64 `json:"fallP"`
	RiseP float64 `json:"riseP"`
	// Testable is true when the case's runs could show a fall on their
	// own: a fall from all to none over Runs would have a FallP at or
	// below 1 − Level (3 → 3 runs and more at 95 %; never with one run a
	// side).
	Testable bool `json:"testable"`
	// GateFailed is true when the case fails the gate on its own: it
	// regressed (beyond the tolerance), and either FallP is at or below
	// 1 − Level (GateRule "case-falls") or its runs could not have shown
	// a significant fall at all (GateRule "untested-falls").
	GateFailed bool `json:"gateFailed"`
	// GateRule is the rule by which the case fails the gate on its own
	// (GateCaseFalls or GateUntestedFalls); empty when it does not.
	GateRule string `json:"gateRule,omitempty"`
}

// The statuses of a paired case.
const (
	CaseRegressed = "regressed"
	CaseImproved  = "improved"
	CaseUnchanged = "unchanged"
)

// Flips counts the paired cases whose verdict (CaseDelta.Passed) flipped,
// with McNemar's exact two-sided p-value on them (1 when none flipped). The
// test treats cases as independent, clusters or not.
type Flips struct {
	PassToFail int     `json:"passToFail"`
	FailToPass int     `json:"failToPass"`
	PValue     float64 `json:"mcnemarP"`
}

// Suites compares the suite directories a (the baseline) and b. Each is
// read from its suite-summary.json, streamed, without opening any run
// directory unless a case's identity differs (then one run.json per
// distinct identity explains which fields differ); a suite without a
// summary is read from suite.json and its runs' run.json files. Errors
// name the path and the problem: a directory that is not a suite (a run
// directory included), a truncated or corrupt JSON file.
func Suites(ctx context.Context, a, b string, opts Options) (*SuiteComparison, error) {
	return compareSides(ctx, opts,
		func(ctx context.Context, sd *side) error { return readSuiteDir(ctx, a, sd) },
		func(ctx context.Context, sd *side) error { return readSuiteDir(ctx, b, sd) })
}

// RunSets compares two sets of run directories as suites: runs sharing a
// canonical case id are repetitions of that case. The cluster of a case
// comes from the runs' case.json.
func RunSets(ctx context.Context, a, b []string, opts Options) (*SuiteComparison, error) {
	for i, dirs := range [][]string{a, b} {
		if len(dirs) == 0 {
			return nil, fmt.Errorf("%w: the run directories of side %s are an empty list", ErrEmpty, "AB"[i:i+1])
		}
	}
	return compareSides(ctx, opts,
		func(ctx context.Context, sd *side) error { return readRunDirs(ctx, a, sd) },
		func(ctx context.Context, sd *side) error { return readRunDirs(ctx, b, sd) })
}

// SuiteRecords compares two suites already read (record.ReadSuite, or the
// orchestrator's results). A suite without a summary is read from its
// manifest and its runs' records; Dir resolves the run directories.
func SuiteRecords(ctx context.Context, a, b *record.Suite, opts Options) (*SuiteComparison, error) {
	for i, s := range []*record.Suite{a, b} {
		if s == nil {
			return nil, fmt.Errorf("%w: suite %s is nil", ErrEmpty, "AB"[i:i+1])
		}
	}
	return compareSides(ctx, opts,
		func(ctx context.Context, sd *side) error { return addSuiteRecord(ctx, a, sd) },
		func(ctx context.Context, sd *side) error { return addSuiteRecord(ctx, b, sd) })
}

// compareSides reads both sides at once, then pairs and compares them.
func compareSides(ctx context.Context, opts Options, readA, readB func(context.Context, *side) error) (*SuiteComparison, error) {
	st, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	sa, sb := newSide("A"), newSide("B")
	var errA, errB error
	var wg sync.WaitGroup
	wg.Go(func() { errA = readA(ctx, sa) })
	errB = readB(ctx, sb)
	wg.Wait()
	if errA != nil {
		return nil, errA
	}
	if errB != nil {
		return nil, errB
	}
	sa.finish()
	sb.finish()
	return compareSuites(ctx, sa, sb, st)
}

func compareSuites(ctx context.Context, sa, sb *side, st settings) (*SuiteComparison, error) {
	c := &SuiteComparison{
		A: sa.info, B: sb.info, Reasons: []string{}, Gate: Gate{Reasons: []string{}, Checks: []GateCheck{}},
		OnlyA: []string{}, OnlyB: []string{}, Mismatches: []CaseMismatch{}, Varied: []FieldCount{},
		Cases: []CaseDelta{}, Effects: []Effect{}, Warnings: []Warning{}, EffectWarnings: []EffectWarning{},
		Settings: Settings{
			Method: st.methodLabel, Level: st.cfg.Level, PassRateTolerance: st.tolerance, Strict: st.strict,
			GateMetrics: st.gate, Vary: sortedVary(st.vary),
		},
	}
	if st.methodLabel == stats.PercentileBootstrap {
		c.Settings.Resamples, c.Settings.Seed = st.cfg.Resamples, st.cfg.Seed
		if c.Settings.Resamples == 0 {
			c.Settings.Resamples = stats.DefaultResamples
		}
	}
	paired, err := pairCases(ctx, c, sa, sb, st)
	if err != nil {
		return nil, err
	}
	clustered := false
	units := map[string]bool{}
	for _, pc := range paired {
		if pc.unit != "" {
			clustered = true
			units[pc.unit] = true
		} else {
			units["\x00"+pc.id] = true
		}
	}
	c.Counts.Paired, c.Counts.Clusters = len(paired), len(units)
	for _, pc := range paired {
		c.Cases = append(c.Cases, caseDelta(pc, sa, sb, st))
	}
	for _, cd := range c.Cases {
		switch {
		case cd.Passed.A && !cd.Passed.B:
			c.Flips.PassToFail++
		case !cd.Passed.A && cd.Passed.B:
			c.Flips.FailToPass++
		}
	}
	c.Flips.PValue = stats.McNemarExact(c.Flips.PassToFail, c.Flips.FailToPass)
	for _, name := range metricNames(st, sa, sb) {
		c.Effects = append(c.Effects, effect(name, paired, sa, sb, clustered, st))
	}
	c.EffectWarnings = effectWarnings(c.Effects)
	c.decide(st)
	c.warn(clustered, st.cfg.Level)
	return c, nil
}

// metricNames are the metrics to report: the gate metrics and
// Options.Metrics, then with AllMetrics every other metric of either side.
func metricNames(st settings, sa, sb *side) []string {
	names := slices.Clone(st.metrics)
	if !st.allMetrics {
		return names
	}
	var rest []string
	for _, sd := range []*side{sa, sb} {
		for _, n := range sd.metrics.names {
			if !slices.Contains(names, n) && !slices.Contains(rest, n) {
				rest = append(rest, n)
			}
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

// pairCases pairs the cases of the two sides by canonical id, lists the
// cases of one side only, and checks each pair's identity.
func pairCases(ctx context.Context, c *SuiteComparison, sa, sb *side, st settings) ([]pairedCase, error) {
	ids := make([]string, 0, len(sa.cases))
	for id := range sa.cases {
		if _, ok := sb.cases[id]; ok {
			ids = append(ids, id)
		} else {
			c.OnlyA = append(c.OnlyA, id)
		}
	}
	for id := range sb.cases {
		if _, ok := sa.cases[id]; !ok {
			c.OnlyB = append(c.OnlyB, id)
		}
	}
	slices.Sort(ids)
	slices.Sort(c.OnlyA)
	slices.Sort(c.OnlyB)
	c.Counts.OnlyA, c.Counts.OnlyB = len(c.OnlyA), len(c.OnlyB)
	varied := map[Field]int{}
	paired := make([]pairedCase, 0, len(ids))
	for i, id := range ids {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("compare: %w", err)
			}
		}
		ca, cb := sa.cases[id], sb.cases[id]
		ms := caseMismatches(ca, cb)
		if markVaried(ms, st.vary) > 0 {
			c.Mismatches = append(c.Mismatches, CaseMismatch{CaseID: id, Mismatches: ms})
			continue
		}
		seen := map[Field]bool{}
		for _, m := range ms {
			if !seen[m.Field] {
				seen[m.Field] = true
				varied[m.Field]++
			}
		}
		paired = append(paired, pairedCase{id: id, a: ca, b: cb})
	}
	unitClusters(paired)
	c.Counts.Mismatched = len(c.Mismatches)
	for _, f := range identityFields {
		if n := varied[f]; n > 0 {
			c.Varied = append(c.Varied, FieldCount{Field: f, Cases: n})
		}
	}
	return paired, nil
}

// caseMismatches checks that every run of a case, on both sides, has one
// identity. When hashes differ it reads one run.json per distinct identity
// to name the fields.
func caseMismatches(ca, cb *caseAcc) []Mismatch {
	if len(ca.idents) == 1 && len(cb.idents) == 1 && ca.idents[0].hash == cb.idents[0].hash && ca.idents[0].hash != "" {
		return nil
	}
	var out []Mismatch
	type loaded struct {
		meta *record.Metadata
		c    *record.CaseRecord
		err  error
	}
	cache := map[string]loaded{}
	load := func(dir string) (*record.Metadata, *record.CaseRecord, error) {
		l, ok := cache[dir]
		if !ok {
			l.meta, l.c, l.err = loadIdentity(dir)
			cache[dir] = l
		}
		return l.meta, l.c, l.err
	}
	explain := func(x, y identRep, within string) {
		if x.hash == "" || y.hash == "" {
			out = append(out, Mismatch{Field: FieldIdentityHash, A: x.hash, B: y.hash, Within: within, Flag: varyFlag(FieldIdentityHash),
				Note: "a run without run.json has no identity, so it cannot be shown to measure the same thing"})
			return
		}
		if x.hash == y.hash {
			return
		}
		ma, caseA, errA := load(x.runDir)
		mb, caseB, errB := load(y.runDir)
		if errA != nil || errB != nil {
			why := errA
			if why == nil {
				why = errB
			}
			out = append(out, Mismatch{Field: FieldIdentityHash, A: x.hash, B: y.hash, Within: within, Flag: varyFlag(FieldIdentityHash),
				Note: "the fields that differ are unknown: " + unreadable(why)})
			return
		}
		for _, m := range identityMismatches(ma, mb, caseA, caseB) {
			m.Within = within
			out = append(out, m)
		}
	}
	explain(ca.idents[0], cb.idents[0], "")
	for _, r := range ca.idents[1:] {
		explain(ca.idents[0], r, "a")
	}
	for _, r := range cb.idents[1:] {
		explain(cb.idents[0], r, "b")
	}
	return out
}

func caseDelta(pc pairedCase, sa, sb *side, st settings) CaseDelta {
	a, b := pc.a, pc.b
	tolerance := st.tolerance
	d := CaseDelta{
		CaseID: pc.id, Cluster: pc.cluster,
		Runs:     Change[int]{a.runs, b.runs},
		PassRate: Change[float64]{float64(a.passed) / float64(a.runs), float64(b.passed) / float64(b.runs)},
		Passed:   Change[bool]{2*a.passed > a.runs, 2*b.passed > b.runs},
		Status:   CaseUnchanged,
		FallP:    1, RiseP: 1,
		Testable: testable(a.runs, b.runs, st.cfg.Level),
	}
	if d.PassRate.B < d.PassRate.A {
		d.FallP = stats.FisherExactLess(a.passed, a.runs, b.passed, b.runs)
	} else if d.PassRate.B > d.PassRate.A {
		d.RiseP = stats.FisherExactLess(b.passed, b.runs, a.passed, a.runs)
	}
	if v, ok := sa.mean(a, MetricScore); ok {
		d.Score.A = &v
	}
	if v, ok := sb.mean(b, MetricScore); ok {
		d.Score.B = &v
	}
	// Pass rates are fractions k/n: a fall of exactly the tolerance (8/10 →
	// 7/10 at 0.1) must not count because 0.8 − 0.1 rounds below 0.7.
	// Distinct fractions differ by at least 1/(n_A·n_B), far above rateSlack.
	switch fall := d.PassRate.A - d.PassRate.B; {
	case fall > tolerance+rateSlack:
		d.Status = CaseRegressed
		switch {
		case significantP(d.FallP, st.cfg.Level):
			d.GateFailed, d.GateRule = true, GateCaseFalls
		case !d.Testable:
			d.GateFailed, d.GateRule = true, GateUntestedFalls
		}
	case -fall > tolerance+rateSlack:
		d.Status = CaseImproved
	}
	return d
}

// testable reports whether a case with runsA and runsB runs could show a
// fall on its own: whether a fall from all to none would be significant
// by Fisher's exact test, one-sided, at 1 − level.
func testable(runsA, runsB int, level float64) bool {
	return significantP(allToNoneP(runsA, runsB), level)
}

// allToNoneP is Fisher's one-sided p-value of a fall from runsA of runsA
// to 0 of runsB: 1/C(runsA+runsB, runsA), the smallest a fall can have.
func allToNoneP(runsA, runsB int) float64 { return stats.FisherExactLess(runsA, runsA, 0, runsB) }

// rateSlack absorbs the rounding of pass-rate differences.
const rateSlack = 1e-12

func sortedVary(v map[Field]bool) []Field {
	out := []Field{}
	for _, f := range identityFields {
		if v[f] {
			out = append(out, f)
		}
	}
	return out
}
