package experiment

import (
	"fmt"
	"math"
	"slices"

	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/stats"
)

// maxNeededUnits bounds the search of neededUnits: a constraint no result
// satisfies with this many units is called unattainable.
const maxNeededUnits = 1 << 16

// neededUnits is the fewest independent units with which constraint k
// could pass at all: the smallest n at which the best result its metric
// allows (every unit at the bound's end: every case passing, or every case
// going from fail to pass) passes, under the very rules the decision
// applies (the method's interval, the exact bound a sample without spread
// falls back to, and package compare's whole-range interval for an effect
// over too few units). A relative effect is checked on the necessary
// condition that its interval clear 0 on the bound's side. An unbounded
// metric has no best result: its need is the fewest units an interval
// takes. ok is false when no number of units up to maxNeededUnits can pass
// (a bound outside what the metric can take).
func neededUnits(k Constraint) (need int, ok bool) {
	if k.Confidence == nil || k.Metric == MetricSubjectBytes {
		return 1, true
	}
	cfg := k.Confidence.config()
	base := max(cfg.MinUnits, stats.DefaultMinUnits)
	if !unitIntervalMetric(k.Metric) {
		return base, true
	}
	passes := func(n int) bool { return bestPasses(k, cfg, n) }
	if passes(base) {
		return base, true
	}
	lo, hi := base, base*2 // passes(lo) is false
	for !passes(hi) {
		if hi >= maxNeededUnits {
			return 0, false
		}
		lo, hi = hi, min(hi*2, maxNeededUnits)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if passes(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

// bestPasses reports whether the best result on n units passes k.
func bestPasses(k Constraint, cfg stats.Config, n int) bool {
	cfg.Bounded = true
	minB, maxB := k.Min, k.Max
	if k.Relative {
		// lower/b ≥ m with 0 < b ≤ 1 needs lower ≥ min(m, 0); the same for
		// the upper bound.
		if minB != nil {
			minB = ptr(math.Min(*minB, 0))
		}
		if maxB != nil {
			maxB = ptr(math.Max(*maxB, 0))
		}
	}
	within := func(lo, hi float64) bool {
		return (minB == nil || lo >= *minB) && (maxB == nil || hi <= *maxB)
	}
	level := cfg.Level // already stats.CheckLevel's (Confidence.config)
	a := math.Pow((1-level)/2, 1/float64(n))
	if k.RelativeTo != "" {
		if n < minExactUnits(level) {
			return within(-1, 1)
		}
		for _, c := range bestValues(minB, maxB, -1, 1, a) {
			before, after := make([]float64, n), make([]float64, n)
			for i := range n {
				before[i], after[i] = math.Max(0, -c), math.Max(0, c)
			}
			iv, err := stats.Paired(before, after, nil, cfg)
			if err == nil && within(math.Max(-1, iv.Lower), math.Min(1, iv.Upper)) {
				return true
			}
		}
		return false
	}
	values := bestValues(minB, maxB, 0, 1, a)
	if cfg.Method == stats.Wilson {
		values = []float64{0, 1}
	}
	for _, c := range values {
		v := make([]float64, n)
		for i := range v {
			v[i] = c
		}
		iv, err := stats.Mean(v, nil, cfg)
		if err == nil && within(iv.Lower, iv.Upper) {
			return true
		}
	}
	return false
}

// bestValues are the constant results in [lo, hi] that could best satisfy
// the bounds: the ends of the range, and for two bounds the value that
// centres the interval between them (for the symmetric methods and for the
// exact bound, whose centre is lo + (hi−lo)·(u·a + (1−a)/2)).
func bestValues(minB, maxB *float64, lo, hi, a float64) []float64 {
	out := []float64{hi, lo}
	if minB != nil && maxB != nil {
		mid := (*minB + *maxB) / 2
		u := ((mid-lo)/(hi-lo) - (1-a)/2) / a
		for _, c := range []float64{mid, lo + (hi-lo)*u} {
			out = append(out, math.Max(lo, math.Min(hi, c)))
		}
	}
	return out
}

func ptr(v float64) *float64 { return &v }

// minExactUnits is package compare's rule for the effect of a bounded
// metric: with fewer units than this no exact paired test reaches the
// level, so compare reports the whole range [−1, 1] (compare.Effect's
// few-units warning).
func minExactUnits(level float64) int {
	return max(2, int(math.Ceil(math.Log2(2/(1-level))-1e-9)))
}

// honestInterval replaces the zero-width interval of a bounded metric's
// effect — every paired unit moved by the same amount, so a t, normal or
// bootstrap interval claims certainty — by the exact bound for units
// without spread (stats.ConstantInterval over [−1, 1]), and says so.
func honestInterval(e *Effect) {
	iv := e.Interval
	if iv == nil || !unitIntervalMetric(e.Metric) || iv.Lower != iv.Upper || iv.Units < 1 {
		return
	}
	switch iv.Method {
	case stats.StudentT, stats.Normal, stats.PercentileBootstrap:
	default:
		return
	}
	exact, err := stats.ConstantInterval(math.Max(-1, math.Min(1, e.Delta)), iv.Units, -1, 1, iv.Level)
	if err != nil {
		return
	}
	was := iv.Method
	fixed := *iv
	fixed.Lower, fixed.Upper, fixed.Method, fixed.StdErr, fixed.Resamples = exact.Lower, exact.Upper, stats.ClopperPearson, 0, 0
	e.Interval = &fixed
	e.Significant = fixed.Lower > 0 || fixed.Upper < 0
	e.Outcome = ""
	if e.Significant {
		if better := compare.MetricBetter(compareName(e.Metric)); better != "" {
			e.Outcome = "worse"
			if (fixed.Lower > 0) == (better == "higher") {
				e.Outcome = "better"
			}
		}
	}
	e.Warnings = slices.DeleteFunc(e.Warnings, func(w compare.Warning) bool { return w.Code == compare.WarnDegenerate })
	if e.NoChange {
		return // nothing changed: a report says so in a line, without a caveat
	}
	e.Warnings = append(e.Warnings, compare.Warning{Code: compare.WarnDegenerate, Message: fmt.Sprintf(
		"no spread between the %d units (each moved by %s), so the %s interval had zero width; the interval is the exact %s bound for differences in [-1, 1] instead",
		iv.Units, signed(e.Delta), was, stats.ClopperPearson)})
}
