package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/stats"
)

// decide sets the verdict, its reasons and the gate of a suite comparison.
//
//   - Not comparable: a paired case's identity differs in a field that is
//     not varied, or no case is left to pair. The gate fails.
//   - Worse: a gate metric's interval lies entirely on its worse side of
//     0 (for the pass rate: entirely below 0). The gate fails.
//   - Better: a gate metric's interval lies entirely on its better side,
//     and none is worse.
//   - No detectable difference: otherwise.
//
// With Strict the gate also fails on any regressed case, and on any case
// whose verdict flipped from pass to fail (which the tolerance can hide).
func (c *SuiteComparison) decide(st settings) {
	var notComparable []string
	if n := len(c.Mismatches); n > 0 {
		first := c.Mismatches[0]
		notComparable = append(notComparable, fmt.Sprintf("%d %s an identity mismatch (first: %s: %s)",
			n, plural(n, "case has", "cases have"), first.CaseID, fieldNames(first.Mismatches)))
	}
	if c.Counts.Paired == 0 {
		notComparable = append(notComparable, "no case ran on both sides with a matching identity")
	}
	var worse, better, unsure []string
	for _, e := range c.Effects {
		if !slices.Contains(st.gate, e.Metric) {
			continue
		}
		switch {
		case e.Interval == nil:
			unsure = append(unsure, fmt.Sprintf("%s: no interval (%s)", metricLabel(e.Metric), e.Unavailable))
		case e.Outcome == "worse":
			worse = append(worse, fmt.Sprintf("%s %s significantly: %s", metricLabel(e.Metric), moved(e), effectSummary(e)))
		case e.Outcome == "better":
			better = append(better, fmt.Sprintf("%s %s significantly: %s", metricLabel(e.Metric), moved(e), effectSummary(e)))
		default:
			unsure = append(unsure, fmt.Sprintf("%s: %s, the interval includes 0", metricLabel(e.Metric), effectSummary(e)))
		}
	}
	switch {
	case len(notComparable) > 0:
		c.Verdict, c.Reasons = NotComparable, notComparable
		for _, r := range notComparable {
			c.Gate.fail("not comparable: " + r)
		}
	case len(worse) > 0:
		c.Verdict, c.Reasons = Worse, worse
	case len(better) > 0:
		c.Verdict, c.Reasons = Better, better
	default:
		c.Verdict, c.Reasons = NoDifference, unsure
	}
	for _, r := range worse {
		c.Gate.fail(r)
	}
	if st.strict {
		var regressed, flipped []string
		for _, cd := range c.Cases {
			switch {
			case cd.Status == CaseRegressed:
				regressed = append(regressed, cd.CaseID)
			case cd.Passed.A && !cd.Passed.B:
				flipped = append(flipped, cd.CaseID)
			}
		}
		if len(regressed) > 0 {
			c.Gate.fail(fmt.Sprintf("strict: %d %s regressed: %s", len(regressed), plural(len(regressed), "case", "cases"), listSome(regressed, 10)))
		}
		if len(flipped) > 0 {
			c.Gate.fail(fmt.Sprintf("strict: %d %s flipped from pass to fail within the tolerance: %s", len(flipped), plural(len(flipped), "case", "cases"), listSome(flipped, 10)))
		}
	}
}

// warn adds the comparison-wide warnings.
func (c *SuiteComparison) warn(clustered bool) {
	add := func(code, format string, args ...any) {
		c.Warnings = append(c.Warnings, Warning{Code: code, Message: fmt.Sprintf(format, args...)})
	}
	for _, s := range []struct {
		name string
		info SuiteInfo
	}{{"A", c.A}, {"B", c.B}} {
		if s.info.Pending > 0 || s.info.Status == record.SuiteCancelled || s.info.Status == record.SuiteRunning {
			add(WarnIncompleteSuite, "incomplete suite: suite %s is %s: %d of %d runs never ran", s.name, orUnknown(string(s.info.Status)), s.info.Pending, s.info.Attempts)
		}
	}
	if c.A.Ungraded+c.B.Ungraded > 0 {
		add(WarnUngraded, "ungraded runs: %d runs of A and %d of B have no verdict (grading incomplete); they count as not passed", c.A.Ungraded, c.B.Ungraded)
	}
	all := c.Counts.Paired + c.Counts.Mismatched + c.Counts.OnlyA + c.Counts.OnlyB
	if unmatched := c.Counts.OnlyA + c.Counts.OnlyB; unmatched > 0 && 5*unmatched > all {
		add(WarnUnmatchedCases, "unmatched cases: %d of %d cases ran on one side only (%d only in A, %d only in B) and are left out of the paired numbers",
			unmatched, all, c.Counts.OnlyA, c.Counts.OnlyB)
	}
	if p := c.Counts.Paired; p > 0 && p < stats.FewUnits {
		add(WarnFewCases, "few cases: %d paired %s (fewer than %d): intervals are wide and small effects go undetected", p, plural(p, "case", "cases"), stats.FewUnits)
	}
	if clustered && c.Flips.PassToFail+c.Flips.FailToPass > 0 {
		add(WarnMcNemarClusters, "McNemar with clusters: the test treats the %d paired cases as independent, but they fall into %d clusters; rely on the clustered interval of the pass rate",
			c.Counts.Paired, c.Counts.Clusters)
	}
}

func moved(e Effect) string {
	if e.Delta < 0 {
		return "fell"
	}
	return "rose"
}

// effectSummary is "-0.150 [-0.260, -0.040] (t, 95%, 20 cases in 8 clusters)".
func effectSummary(e Effect) string {
	iv := e.Interval
	if iv == nil {
		return formatDelta(e.Unit, e.Delta)
	}
	units := fmt.Sprintf("%d %s", e.Cases, plural(e.Cases, "case", "cases"))
	if iv.Clustered {
		units += fmt.Sprintf(" in %d clusters", iv.Units)
	}
	return fmt.Sprintf("%s [%s, %s] (%s, %g%%, %s)", formatDelta(e.Unit, e.Delta), formatDelta(e.Unit, iv.Lower), formatDelta(e.Unit, iv.Upper),
		iv.Method, 100*iv.Level, units)
}

func fieldNames(ms []Mismatch) string {
	var names []string
	for _, m := range ms {
		if m.Varied {
			continue
		}
		n := string(m.Field)
		if m.Within != "" {
			n += " (within " + strings.ToUpper(m.Within) + ")"
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ") + " " + plural(len(names), "differs", "differ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func listSome(items []string, max int) string {
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:max], ", ") + fmt.Sprintf(", … (%d more)", len(items)-max)
}

func orUnknown(s string) string {
	if s == "" {
		return "incomplete"
	}
	return s
}
