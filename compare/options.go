package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/stats"
)

// Options configures a comparison. The zero value compares with a 95 %
// Student t interval, gates on a significant fall of the pass rate over
// the cases, on any case whose pass rate fell significantly on its own
// runs or fell with too few runs to test it, and (below 20 units) on a
// fall the sign test over the cases shows, and lets no identity field
// differ.
type Options struct {
	// Vary lists identity fields that are expected to differ between A and
	// B because the comparison varies them on purpose: FieldCaseHash when
	// the prompt was edited, FieldFixturesHash when a skill in the fixtures
	// changed, FieldRuntime or FieldDriverConfigHash when the agent did,
	// FieldSource for a new commit. A difference in a varied field is
	// reported (Mismatch.Varied) but does not make the comparison "not
	// comparable". FieldCaseID cannot vary: different cases never compare.
	Vary []Field

	// Method is the interval method of paired effects: "" means
	// stats.StudentT (C−1 degrees of freedom with clusters);
	// stats.PercentileBootstrap resamples cases (or whole clusters) with
	// Seed and Resamples; stats.Normal and stats.Hoeffding are accepted;
	// stats.Wilson does not apply to paired differences and is refused.
	Method    stats.Method
	Level     float64 // confidence level; 0 means 0.95, else in [0.5, 0.999] (stats.CheckLevel)
	Resamples int     // bootstrap resamples; 0 means 2000
	Seed      uint64  // bootstrap stream

	// PassRateTolerance is how far a case's pass rate may fall before the
	// case counts as regressed (0 means any fall counts), in [0, 1). A
	// regressed case whose fall is significant on its own runs (Fisher's
	// exact test, one-sided, p ≤ 1 − Level: 3/3 → 0/3 at 95 %) fails the
	// gate by default (GateCaseFalls), and so does one whose runs are too
	// few for any fall to be significant (GateUntestedFalls: 1/1 → 0/1); a
	// fall within the tolerance never does, except with Strict.
	PassRateTolerance float64
	// Strict makes the gate also fail on any regressed case, significant
	// or not (3/3 → 2/3, which the default lets pass as testable and not
	// significant), and on any case whose verdict (CaseDelta.Passed)
	// flipped from pass to fail, even when its pass rate fell by less than
	// PassRateTolerance.
	Strict bool
	// GateMetrics are the metrics whose significant change decides a
	// suite comparison's verdict, and whose significant worsening fails
	// its gate. nil means {"passRate"}. Each must have a direction (see
	// MetricBetter): "score", "cost.usd" or "durationMs" are typical
	// additions.
	GateMetrics []string
	// Metrics are the metrics reported as paired effects, in order; nil
	// means DefaultMetrics. The gate metrics are always reported.
	Metrics []string
	// AllMetrics reports every metric found in the runs, after Metrics.
	AllMetrics bool
}

// DefaultMetrics returns the paired effects a suite comparison reports by
// default, in order. Each call returns a new slice.
func DefaultMetrics() []string { return slices.Clone(defaultMetrics) }

var defaultMetrics = []string{
	MetricPassRate, MetricScore, "durationMs", "agent.total", "harness.total", "cost.usd",
	"toolCalls", "toolCalls.failed", "interrupts",
}

// The metrics a suite comparison computes besides those of record.RunMetrics.
const (
	// MetricPassRate is a case's share of runs that ended done and passed.
	MetricPassRate = "passRate"
	// MetricScore is a case's mean case score (only over cases graded in every run).
	MetricScore = "score"
)

// settings are Options with defaults applied and checked.
type settings struct {
	vary        map[Field]bool
	cfg         stats.Config
	tolerance   float64
	strict      bool
	gate        []string
	metrics     []string
	allMetrics  bool
	methodLabel stats.Method
}

// resolve applies the defaults and reports every invalid field at once,
// wrapping lux.ErrInvalidConfig.
func (o Options) resolve() (settings, error) {
	var p lux.Problems
	s := settings{vary: map[Field]bool{}, tolerance: o.PassRateTolerance, strict: o.Strict, allMetrics: o.AllMetrics}
	for i, f := range o.Vary {
		switch {
		case f == FieldCaseID:
			p.AddFix(fmt.Sprintf("Vary[%d]", i), "caseId cannot vary", "runs of different cases are never comparable; compare each case with itself")
		case !slices.Contains(identityFields, f):
			p.AddFix(fmt.Sprintf("Vary[%d]", i), fmt.Sprintf("unknown identity field %q", f), "known fields: "+fieldList())
		default:
			s.vary[f] = true
		}
	}
	switch o.Method {
	case "", stats.StudentT, stats.Normal, stats.Hoeffding, stats.PercentileBootstrap:
	case stats.Wilson:
		p.AddFix("Method", "wilson does not apply to paired differences, which lie in [-1, 1]", fmt.Sprintf("use %q (the default) or %q", stats.StudentT, stats.PercentileBootstrap))
	default:
		p.AddFix("Method", fmt.Sprintf("unknown method %q", o.Method), fmt.Sprintf("use %q, %q, %q or %q", stats.StudentT, stats.PercentileBootstrap, stats.Normal, stats.Hoeffding))
	}
	level, err := stats.CheckLevel(o.Level)
	addLevelProblem(&p, "Level", err)
	if o.Resamples < 0 || o.Resamples > stats.MaxResamples {
		p.Addf("Resamples", "must lie in [0, %d], got %d", stats.MaxResamples, o.Resamples)
	}
	if !(o.PassRateTolerance >= 0 && o.PassRateTolerance < 1) || math.IsNaN(o.PassRateTolerance) {
		p.AddFix("PassRateTolerance", fmt.Sprintf("must lie in [0, 1), got %v", o.PassRateTolerance), "0 counts any fall of a case's pass rate")
	}
	s.gate = o.GateMetrics
	if s.gate == nil {
		s.gate = []string{MetricPassRate}
	}
	for i, m := range s.gate {
		if MetricBetter(m) == "" {
			p.AddFix(fmt.Sprintf("GateMetrics[%d]", i), fmt.Sprintf("metric %q has no direction, so it cannot be gated", m),
				"check the spelling, and gate on a metric where higher or lower is better, such as passRate, score, cost.usd, durationMs or agent.total")
		}
	}
	s.metrics = o.Metrics
	if s.metrics == nil {
		s.metrics = DefaultMetrics()
	}
	for i, m := range s.metrics {
		if strings.TrimSpace(m) == "" {
			p.Add(fmt.Sprintf("Metrics[%d]", i), "must not be empty")
		}
	}
	// Gate metrics are always reported, first if not listed.
	var front []string
	for _, g := range s.gate {
		if !slices.Contains(s.metrics, g) && !slices.Contains(front, g) {
			front = append(front, g)
		}
	}
	var metrics []string
	for _, m := range append(front, s.metrics...) {
		if !slices.Contains(metrics, m) {
			metrics = append(metrics, m)
		}
	}
	s.metrics = metrics
	s.cfg = stats.Config{Method: o.Method, Level: level, Resamples: o.Resamples, Seed: o.Seed}
	s.methodLabel = o.Method
	if s.methodLabel == "" {
		s.methodLabel = stats.StudentT
	}
	if err := p.Err(lux.ErrInvalidConfig); err != nil {
		return settings{}, fmt.Errorf("compare: options: %w", err)
	}
	return s, nil
}

// addLevelProblem records err, a [stats.CheckLevel] error, at path with
// stats' own message, so the rule reads the same wherever a level is set;
// the problem matches [stats.ErrLevel].
func addLevelProblem(p *lux.Problems, path string, err error) {
	var se *stats.Error
	if errors.As(err, &se) {
		p.Merge("", &lux.FieldError{Path: path, Problem: se.Message(), Kind: se})
	}
}

// Verdict is the answer of a comparison.
type Verdict string

// The verdicts.
const (
	Better        Verdict = "better"
	Worse         Verdict = "worse"
	NoDifference  Verdict = "no detectable difference"
	NotComparable Verdict = "not comparable"
)

// Change is a value on side A and on side B.
type Change[T any] struct {
	A T `json:"a"`
	B T `json:"b"`
}

// Warning is a caveat about a comparison: it was computed, but read it
// with care. Code is stable and machine-readable; Message starts with a
// short label ("few clusters: ...").
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// The warning codes.
const (
	WarnFewClusters     = "few-clusters"     // stats.WarnFewClusters
	WarnFewUnits        = "few-units"        // stats.WarnFewUnits, or too few units for a useful interval of a bounded metric
	WarnDegenerate      = "degenerate"       // stats.WarnDegenerate: zero spread, zero-width interval
	WarnFewResamples    = "few-resamples"    // stats.WarnFewResamples
	WarnFewCases        = "few-cases"        // fewer paired cases than stats.FewUnits
	WarnUnmatchedCases  = "unmatched-cases"  // many cases ran on one side only
	WarnUngraded        = "ungraded-runs"    // runs without a verdict count as not passed
	WarnIncompleteSuite = "incomplete-suite" // a suite was cancelled or never finished
	WarnMcNemarClusters = "mcnemar-clusters" // McNemar's test assumes independent cases
	WarnClipped         = "clipped"          // an interval was cut to the range the metric can take
	WarnTestsDisagree   = "tests-disagree"   // the pass rate's interval and McNemar's test disagree
	WarnStats           = "stats"            // a stats caveat this package has no code for (none today)
)
