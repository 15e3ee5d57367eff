package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Bounded metrics: a case's mean of a fraction or a score lies in [0, 1],
// so a paired difference lies in [−1, 1] and so does any honest interval
// of one.
func bounded(unit string) bool { return unit == "fraction" || unit == "score" }

// minExactUnits is the fewest independent units with which an exact
// paired test of a bounded difference can reach the confidence level:
// with n units the smallest two-sided p-value of the sign-flip test (all
// units moved the same way) is 2/2ⁿ, so n must satisfy 2/2ⁿ ≤ 1 − level
// (6 at 95 %, 8 at 99 %). Below it, no interval of a bounded metric can
// rule anything out.
func minExactUnits(level float64) int {
	return max(2, int(math.Ceil(math.Log2(2/(1-level))-1e-9)))
}

// bound keeps the interval of a bounded metric inside [−1, 1]. With fewer
// units than minExactUnits the interval is the whole range, never
// significant, with a WarnFewUnits warning; otherwise an interval that
// reaches outside the range is cut to it, with a WarnClipped warning.
func (e *Effect) bound(level float64) {
	iv := e.Interval
	if iv == nil || !bounded(e.Unit) {
		return
	}
	if need := minExactUnits(level); iv.Units < need {
		iv.Lower, iv.Upper, iv.Clipped = -1, 1, true
		// A zero-width interval is no longer what is reported.
		e.Warnings = slices.DeleteFunc(e.Warnings, func(w Warning) bool { return w.Code == WarnDegenerate })
		e.Warnings = append(e.Warnings, Warning{Code: WarnFewUnits, Message: fmt.Sprintf(
			"too few independent units for a useful interval (n=%d): with fewer than %d no exact paired test can reach %s, so the interval is the whole range a difference can take (±100 pts for a rate, ±1 for a score); add cases, and rely on the per-case tests",
			iv.Units, need, levelPct(level))})
		return
	}
	if iv.Lower >= -1 && iv.Upper <= 1 {
		return
	}
	raw := fmt.Sprintf("[%s, %s]", formatDelta(e.Unit, iv.Lower), formatDelta(e.Unit, iv.Upper))
	iv.Lower, iv.Upper, iv.Clipped = math.Max(iv.Lower, -1), math.Min(iv.Upper, 1), true
	e.Warnings = append(e.Warnings, Warning{Code: WarnClipped, Message: fmt.Sprintf(
		"clipped interval: the %s interval %s reaches beyond what a difference of %s can be and is cut to [%s, %s]",
		iv.Method, raw, metricLabel(e.Metric), formatDelta(e.Unit, iv.Lower), formatDelta(e.Unit, iv.Upper))})
}

// levelPct is a confidence level as "95%".
func levelPct(level float64) string { return pct(level) }

// alphaPct is the significance level 1 − level as "5%".
func alphaPct(level float64) string { return pct(1 - level) }

func pct(f float64) string { return strconv.FormatFloat(100*f, 'g', 4, 64) + "%" }

// formatP formats a p-value with three significant digits.
func formatP(p float64) string {
	if p < 1e-4 {
		return "< 0.0001"
	}
	return strconv.FormatFloat(p, 'g', 3, 64)
}

// significantP reports whether p is at or below 1 − level, allowing for
// the rounding of both (3/3 → 0/3 has p = 1/20 exactly, 1 − 0.95 is not
// exactly 0.05 in binary).
func significantP(p, level float64) bool { return p <= (1-level)*(1+1e-9) }
