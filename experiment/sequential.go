package experiment

import (
	"fmt"
	"math"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/stats"
)

// Sequential is a campaign's sequential stopping rule: instead of running
// every case a fixed number of times, the campaign runs in rounds and
// stops each variant as soon as its gates are decided, with an error rate
// that holds however early it stops (anytime-valid tests, see package
// stats).
//
// A round is one repetition of every case of every split, for the
// baseline and for every variant still running, on every profile. After
// each round every sequential gate of every running variant observes the
// round: the sign test one pair per case (baseline and variant on the
// same case and repetition), a confidence sequence one value per round,
// the round's mean paired difference over the split's fixed case set (the
// design, one observation per round, under which its interval is valid:
// rounds are independent and identically distributed). A variant stops
// when every gate has crossed its threshold (it may be promoted), when a
// gate is futile (rejected: the effect worth promoting is excluded), or
// at MaxRounds (undecided). With K variants each test runs at level
// 1 − Alpha/K (Bonferroni on e-values, stats.EBonferroni), so the chance
// that any variant is promoted wrongly is at most Alpha, whenever each
// stops.
type Sequential struct {
	// Alpha is the family-wise error rate over the variants; default 0.05.
	Alpha float64 `json:"alpha,omitempty"`
	// MinRounds: no decision before this many rounds (default 1).
	MinRounds int `json:"minRounds,omitempty"`
	// MaxRounds is the most rounds a variant runs (required); the
	// campaign's worst case is MaxRounds repetitions of everything.
	MaxRounds int `json:"maxRounds"`
	// FutilityWinRate is, for sign-test gates, the smallest share of
	// discordant pairs (one side passed) the variant must win to be worth
	// promoting, in (0.5, 1); 0 means no futility stop.
	FutilityWinRate float64 `json:"futilityWinRate,omitempty"`
	// FutilityEffect is, for confidence-sequence gates, the smallest
	// effect beyond the gate's bound worth promoting, in the metric's
	// units; 0 means no futility stop. With a margin the sequence is
	// two-sided (a one-sided one never moves its far bound).
	FutilityEffect float64 `json:"futilityEffect,omitempty"`
	// Plan states the alternative -plan reports the expected spend under.
	Plan *SequentialPlan `json:"plan,omitempty"`
}

// SequentialPlan is an alternative to plan for: every case passes with
// probability Baseline under the baseline and Candidate under a variant.
type SequentialPlan struct {
	Baseline  float64 `json:"baseline"`
	Candidate float64 `json:"candidate"`
}

// The tests of a sequential gate (Constraint.Test).
const (
	// TestSign is the sign test on discordant pairs (stats.SignTest), for
	// a pass-rate effect bounded at 0: the default for quality.passRate.
	TestSign = "sign-test"
	// TestBetting is the betting confidence sequence of the per-round mean
	// paired difference (stats.BettingSequence): the default for
	// quality.score.
	TestBetting = "betting"
	// TestEB is its closed-form empirical-Bernstein fallback
	// (stats.EBSequence).
	TestEB = "empirical-bernstein"
)

// DefaultSequentialAlpha is Sequential.Alpha when it is 0.
const DefaultSequentialAlpha = 0.05

// sequentialGate reports whether constraint k is decided by a sequential
// test in campaign c: every constraint against the baseline is, in a
// sequential campaign.
func (c *Campaign) sequentialGate(k Constraint) bool {
	return c.Sequential != nil && k.RelativeTo == BaselineID && k.Metric != MetricSubjectBytes
}

// defaultTest is the test a sequential gate on metric uses by default.
func defaultTest(metric string) string {
	if metric == MetricPassRate {
		return TestSign
	}
	return TestBetting
}

// withSequentialDefaults applies the sequential defaults to c (a copy
// made by withDefaults): alpha, the first round, the test of each gate,
// and MaxRounds repetitions (the worst case the plan and the manifest
// count).
func (c *Campaign) withSequentialDefaults() {
	if c.Sequential == nil {
		return
	}
	sq := *c.Sequential
	if sq.Alpha == 0 {
		sq.Alpha = DefaultSequentialAlpha
	}
	positive(&sq.MinRounds, 1)
	c.Sequential = &sq
	if sq.MaxRounds > 0 {
		c.Repetitions.Promotion = sq.MaxRounds
	}
	for i, k := range c.Objectives.Constraints {
		if c.sequentialGate(k) && k.Test == "" {
			c.Objectives.Constraints[i].Test = defaultTest(k.Metric)
		}
	}
}

// checkSequential validates the sequential rule and the constraints it
// decides; raw is the campaign as written (before defaults), d with them.
func checkSequential(p *lux.Problems, raw, d *Campaign) {
	if d.Sequential == nil {
		for i, k := range d.Objectives.Constraints {
			if k.Test != "" {
				p.AddFix(fmt.Sprintf("objectives.constraints[%d].test", i), "only applies to a sequential campaign",
					`add "sequential": {"maxRounds": 10}, or drop test`)
			}
		}
		return
	}
	sq := d.Sequential
	variants := max(1, len(d.Variants))
	switch {
	case sq.MaxRounds < 1:
		p.AddFix("sequential.maxRounds", "required", "the most rounds (repetitions of every case) a variant runs, e.g. 10")
	case sq.MinRounds > sq.MaxRounds:
		p.AddFix("sequential.minRounds", fmt.Sprintf("%d is above maxRounds %d", sq.MinRounds, sq.MaxRounds), "lower minRounds or raise maxRounds")
	}
	if raw.Sequential.MinRounds < 0 {
		p.AddFix("sequential.minRounds", "must not be negative", "leave it out for 1")
	}
	if a := sq.Alpha; !(a > 0 && a <= 0.5) {
		p.AddFix("sequential.alpha", fmt.Sprintf("%v is outside (0, 0.5]", a), "leave it out for 0.05")
	} else if a/float64(variants) < 0.001 {
		p.AddFix("sequential.alpha", fmt.Sprintf("with %d variants each test runs at alpha/%d = %.2g, below 0.001", variants, variants, a/float64(variants)),
			"raise alpha or test fewer variants")
	}
	if f := sq.FutilityWinRate; f != 0 && !(f > 0.5 && f < 1) {
		p.AddFix("sequential.futilityWinRate", fmt.Sprintf("%v is outside (0.5, 1)", f), "the smallest share of discordant pairs worth winning, e.g. 0.7; leave it out for no futility stop")
	}
	if f := sq.FutilityEffect; !(f >= 0) || math.IsInf(f, 0) {
		p.AddFix("sequential.futilityEffect", fmt.Sprintf("%v is not a finite effect ≥ 0", f), "the smallest effect beyond the gate's bound worth promoting, e.g. 0.1; leave it out for none")
	}
	if pl := sq.Plan; pl != nil && !(pl.Baseline >= 0 && pl.Baseline <= 1 && pl.Candidate >= 0 && pl.Candidate <= 1) {
		p.AddFix("sequential.plan", fmt.Sprintf("pass probabilities %v and %v", pl.Baseline, pl.Candidate), "give each in [0, 1], e.g. {\"baseline\": 0.5, \"candidate\": 0.7}")
	}
	if raw.Repetitions.Promotion != 0 && raw.Repetitions.Promotion != sq.MaxRounds {
		p.AddFix("repetitions.promotion", "a sequential campaign repeats each case up to sequential.maxRounds times", "leave repetitions.promotion out")
	}
	gates := 0
	for i, k := range d.Objectives.Constraints {
		at := fmt.Sprintf("objectives.constraints[%d]", i)
		if !d.sequentialGate(k) {
			if k.Test != "" {
				p.AddFix(at+".test", "only applies to a constraint against the baseline", `add "relativeTo": "baseline", or drop test`)
			}
			continue
		}
		gates++
		if k.Metric != MetricPassRate && k.Metric != MetricScore {
			p.AddFix(at+".metric", fmt.Sprintf("a sequential gate needs a metric in [0, 1], not %s", k.Metric), "use quality.passRate or quality.score, or drop relativeTo")
		}
		if k.Relative {
			p.AddFix(at+".relative", "a sequential gate bounds the effect in the metric's units", "drop relative")
		}
		if k.Confidence != nil {
			p.AddFix(at+".confidence", "the sequential test is the gate's confidence", "drop confidence (set sequential.alpha)")
		}
		if (k.Min == nil) == (k.Max == nil) {
			p.AddFix(at, "a sequential gate needs exactly one bound", `bound the effect from one side, e.g. {"min": 0}`)
		}
		bound := 0.0
		if k.Min != nil {
			bound = *k.Min
		} else if k.Max != nil {
			bound = *k.Max
		}
		if !(bound > -1 && bound < 1) {
			p.AddFix(at, fmt.Sprintf("the bound %v is outside (-1, 1), where a paired difference of a [0, 1] metric lies", bound), "bound the effect inside (-1, 1)")
		}
		switch k.Test {
		case TestSign:
			if k.Metric != MetricPassRate {
				p.AddFix(at+".test", "the sign test applies to pass/fail outcomes only", `use "betting" or "empirical-bernstein" for quality.score`)
			} else if bound != 0 {
				p.AddFix(at+".test", fmt.Sprintf("the sign test tests \"no change\"; it cannot test the bound %v", bound), `bound the effect at 0, or use "betting" for a margin`)
			}
		case TestBetting, TestEB:
		default:
			p.AddFix(at+".test", fmt.Sprintf("unknown test %q", k.Test), "use sign-test, betting or empirical-bernstein")
		}
	}
	if len(d.Variants) == 0 && d.Optimizer == nil { // a search's optimizer proposes them
		p.AddFix("variants", "a sequential campaign decides variants against the baseline and has none", "add a variant, or drop sequential")
	}
	if gates == 0 {
		p.AddFix("objectives.constraints", "a sequential campaign needs a constraint against the baseline to decide",
			`add {"metric": "quality.passRate", "relativeTo": "baseline", "min": 0}`)
	}
}

// signOptions are the options of the sign test of gate k in campaign c
// (with defaults) whose split has n cases.
func (c *Campaign) signOptions(k Constraint, n int) stats.SignTestOptions {
	sq := c.Sequential
	alt := stats.Greater
	if k.Min == nil {
		alt = stats.Less
	}
	return stats.SignTestOptions{
		Alternative: alt, Level: c.testLevel(),
		MinPairs: sq.MinRounds * n, MaxPairs: sq.MaxRounds * n, Futility: sq.FutilityWinRate,
	}
}

// csOptions are the options of the confidence sequence of gate k: the
// per-round mean paired difference in [−1, 1], tested against the gate's
// bound. Without a futility margin the sequence is one-sided, on the
// gate's side (all of α there); with one it is two-sided, because a
// one-sided sequence never moves its far bound, which futility reads.
func (c *Campaign) csOptions(k Constraint) stats.CSOptions {
	o := stats.CSOptions{Level: c.testLevel(), Min: -1, Max: 1, Alternative: stats.Greater}
	if k.Min != nil {
		o.Null = *k.Min
	} else if k.Max != nil {
		o.Null, o.Alternative = *k.Max, stats.Less
	}
	if c.Sequential.FutilityEffect > 0 {
		o.Alternative = stats.TwoSided
	}
	return o
}

// csStop is the stop of a confidence-sequence gate (before minRounds and
// maxRounds apply): Crossed once the sequence lies beyond the gate's
// bound on the gate's side, Futile once it excludes every effect at least
// margin beyond the bound (or lies wholly on the wrong side of it).
func csStop(k Constraint, cs stats.ConfidenceSequence, margin float64) stats.StopReason {
	if k.Min != nil {
		switch b := *k.Min; {
		case cs.Lower > b:
			return stats.Crossed
		case cs.Upper < b || (margin > 0 && cs.Upper < b+margin):
			return stats.Futile
		}
		return stats.Continuing
	}
	switch b := *k.Max; {
	case cs.Upper < b:
		return stats.Crossed
	case cs.Lower > b || (margin > 0 && cs.Lower > b-margin):
		return stats.Futile
	}
	return stats.Continuing
}

// testLevel is the level of each test: 1 − alpha/K for K variants.
func (c *Campaign) testLevel() float64 { return 1 - c.testAlpha() }

// testAlpha is each test's error rate: alpha/K for K variants.
func (c *Campaign) testAlpha() float64 {
	return c.Sequential.Alpha / float64(max(1, len(c.Variants)))
}
