package compare

import (
	"fmt"
	"math"
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
//     0 (for the pass rate: entirely below 0), or a case's pass rate fell
//     by more than the tolerance, significantly on its own runs (Fisher's
//     exact test, one-sided, p ≤ 1 − Level). The gate fails.
//   - Better: a gate metric's interval lies entirely on its better side,
//     or a case rose the same way, and nothing is worse.
//   - No detectable difference: otherwise.
//
// With Strict the gate also fails on any regressed case, and on any case
// whose verdict flipped from pass to fail (which the tolerance can hide).
// Every rule is recorded as a GateCheck, passed or failed.
func (c *SuiteComparison) decide(st settings) {
	level := st.cfg.Level
	var notComparable []string
	if n := len(c.Mismatches); n > 0 {
		first := c.Mismatches[0]
		notComparable = append(notComparable, fmt.Sprintf("%d %s an identity mismatch (first: %s: %s)",
			n, plural(n, "case has", "cases have"), first.CaseID, fieldNames(first.Mismatches)))
	}
	if c.Counts.Paired == 0 {
		notComparable = append(notComparable, "no case ran on both sides with a matching identity")
	}
	id := GateCheck{Rule: GateIdentity, Test: "identity hash of every run of each paired case", Failed: len(notComparable) > 0}
	if id.Failed {
		id.Detail = strings.Join(notComparable, "; ")
		if flags := varyFlags(c.caseMismatches()); flags != "" {
			id.Detail += "; if B changes it on purpose, accept it with " + flags
		}
	} else {
		id.Detail = fmt.Sprintf("every run of the %d paired %s has one identity", c.Counts.Paired, plural(c.Counts.Paired, "case", "cases"))
		if len(c.Varied) > 0 {
			id.Detail += fmt.Sprintf(" (varied on purpose: %s)", variedList(c.Varied))
		}
	}
	c.Gate.Checks = append(c.Gate.Checks, id)
	for _, r := range notComparable {
		c.Gate.fail("not comparable: " + r)
	}

	var worse, better, statements []string
	for _, e := range c.Effects {
		if !slices.Contains(st.gate, e.Metric) {
			continue
		}
		line := metricStatement(e)
		statements = append(statements, line)
		ch := GateCheck{Rule: GateMetric, Metric: e.Metric, Test: intervalTest(e, level), Failed: e.Outcome == "worse"}
		worsening := "fall"
		if e.Better == "lower" {
			worsening = "rise"
		}
		switch {
		case e.Interval == nil:
			ch.Detail = "not gated: no interval (" + e.Unavailable + ")"
		case e.Outcome == "worse":
			worse = append(worse, line)
			ch.Detail = moved(e) + ": " + effectSummary(e)
		default:
			if e.Outcome == "better" {
				better = append(better, line)
			}
			ch.Detail = "no significant " + worsening + ": " + effectSummary(e)
		}
		c.Gate.check(ch, "")
	}

	fell, rose := c.casesOnTheirOwn(level)
	c.Gate.check(c.caseFallsCheck(fell, st), "")
	if st.strict {
		c.strictCheck()
	}

	switch {
	case len(notComparable) > 0:
		c.Verdict, c.Reasons = NotComparable, notComparable
	case len(worse) > 0 || len(fell) > 0:
		c.Verdict, c.Reasons = Worse, append(caseStatements(fell, "fell", func(cd CaseDelta) float64 { return cd.FallP }), statements...)
	case len(better) > 0 || len(rose) > 0:
		c.Verdict, c.Reasons = Better, append(caseStatements(rose, "rose", func(cd CaseDelta) float64 { return cd.RiseP }), statements...)
	default:
		c.Verdict, c.Reasons = NoDifference, statements
	}
	if c.Reasons == nil {
		c.Reasons = []string{}
	}
}

// casesOnTheirOwn are the cases whose pass rate fell (rose) by more than
// the tolerance with a one-sided Fisher exact p-value at or below 1 − level.
func (c *SuiteComparison) casesOnTheirOwn(level float64) (fell, rose []CaseDelta) {
	for _, cd := range c.Cases {
		switch {
		case cd.GateFailed:
			fell = append(fell, cd)
		case cd.Status == CaseImproved && significantP(cd.RiseP, level):
			rose = append(rose, cd)
		}
	}
	return fell, rose
}

// caseTest names the per-case test.
func caseTest(level float64) string {
	return "Fisher's exact test per case, one-sided, α = " + alphaPct(level)
}

// caseFallsCheck is the GateCaseFalls rule: it fails on the cases that
// fell significantly on their own, and otherwise says which cases fell
// without being significant and what would decide them.
func (c *SuiteComparison) caseFallsCheck(fell []CaseDelta, st settings) GateCheck {
	level := st.cfg.Level
	ch := GateCheck{Rule: GateCaseFalls, Test: caseTest(level), Failed: len(fell) > 0}
	tol := ""
	if st.tolerance > 0 {
		tol = fmt.Sprintf(" by more than the tolerance (%s)", formatDelta("fraction", st.tolerance))
	}
	if ch.Failed {
		var parts []string
		for _, cd := range fell {
			ch.Cases = append(ch.Cases, cd.CaseID)
			parts = append(parts, fmt.Sprintf("%s (%d/%d → %d/%d passed, p = %s)", cd.CaseID,
				passedRuns(cd.PassRate.A, cd.Runs.A), cd.Runs.A, passedRuns(cd.PassRate.B, cd.Runs.B), cd.Runs.B, formatP(cd.FallP)))
		}
		ch.Detail = fmt.Sprintf("%d %s fell%s, significant on %s own: %s", len(fell), plural(len(fell), "case", "cases"), tol,
			plural(len(fell), "its", "their"), listSome(parts, 10))
		return ch
	}
	var weak []string
	fewest := 0
	for _, cd := range c.Cases {
		if cd.Status != CaseRegressed {
			continue
		}
		weak = append(weak, fmt.Sprintf("%s %s → %s (%d → %d runs, p = %s)", cd.CaseID,
			formatValue("fraction", cd.PassRate.A), formatValue("fraction", cd.PassRate.B), cd.Runs.A, cd.Runs.B, formatP(cd.FallP)))
		if r := min(cd.Runs.A, cd.Runs.B); fewest == 0 || r < fewest {
			fewest = r
		}
	}
	if len(weak) == 0 {
		ch.Detail = "no case's pass rate fell" + tol
		return ch
	}
	ch.Detail = fmt.Sprintf("no fall is significant on its own; %d %s fell%s: %s", len(weak), plural(len(weak), "case", "cases"), tol, listSome(weak, 10))
	if need := minRunsAllToNone(level); fewest < need {
		ch.Detail += fmt.Sprintf("; with %d %s a side not even a fall from all to none reaches %s (it takes %d)", fewest,
			plural(fewest, "run", "runs"), alphaPct(level), need)
	}
	ch.Detail += "; run more repetitions, or use -strict (Options.Strict) to fail on any fall"
	return ch
}

// minRunsAllToNone is the fewest runs a side with which a fall from k of k
// to 0 of k is significant on its own: Fisher's p is 1/C(2k, k).
func minRunsAllToNone(level float64) int {
	for k := 1; ; k++ {
		if significantP(stats.FisherExactLess(k, k, 0, k), level) {
			return k
		}
	}
}

// passedRuns recovers the number of passed runs from a pass rate.
func passedRuns(rate float64, runs int) int { return int(math.Round(rate * float64(runs))) }

// strictCheck is the GateStrict rule.
func (c *SuiteComparison) strictCheck() {
	var regressed, flipped []string
	for _, cd := range c.Cases {
		switch {
		case cd.Status == CaseRegressed:
			regressed = append(regressed, cd.CaseID)
		case cd.Passed.A && !cd.Passed.B:
			flipped = append(flipped, cd.CaseID)
		}
	}
	ch := GateCheck{Rule: GateStrict, Test: "any fall beyond the tolerance or pass → fail flip, no test", Failed: len(regressed)+len(flipped) > 0,
		Cases: append(slices.Clone(regressed), flipped...), Detail: "no case fell beyond the tolerance or flipped from pass to fail"}
	var found []string
	if len(regressed) > 0 {
		found = append(found, fmt.Sprintf("%d %s regressed: %s", len(regressed), plural(len(regressed), "case", "cases"), listSome(regressed, 10)))
	}
	if len(flipped) > 0 {
		found = append(found, fmt.Sprintf("%d %s flipped from pass to fail within the tolerance: %s", len(flipped), plural(len(flipped), "case", "cases"), listSome(flipped, 10)))
	}
	if ch.Failed {
		ch.Detail = strings.Join(found, "; ")
	}
	c.Gate.Checks = append(c.Gate.Checks, ch)
	for _, f := range found {
		c.Gate.fail("strict: " + f)
	}
}

// caseStatements are the verdict's lines for cases that moved
// significantly on their own, at most ten and a count of the rest.
func caseStatements(cases []CaseDelta, moved string, p func(CaseDelta) float64) []string {
	var out []string
	for i, cd := range cases {
		if i == 10 {
			out = append(out, fmt.Sprintf("… and %d more %s %s on their own", len(cases)-10, plural(len(cases)-10, "case", "cases"), moved))
			break
		}
		out = append(out, fmt.Sprintf("%s %s on its own: %s, Fisher's exact test, one-sided p = %s", cd.CaseID, moved, casePassLine(cd), formatP(p(cd))))
	}
	return out
}

// casePassLine is "pass rate 100.0% → 0.0% (3 → 3 runs)".
func casePassLine(cd CaseDelta) string {
	return fmt.Sprintf("pass rate %s → %s (%d → %d runs)", formatValue("fraction", cd.PassRate.A), formatValue("fraction", cd.PassRate.B), cd.Runs.A, cd.Runs.B)
}

// caseMismatches lists the mismatches of every excluded case.
func (c *SuiteComparison) caseMismatches() []Mismatch {
	var out []Mismatch
	for _, cm := range c.Mismatches {
		out = append(out, cm.Mismatches...)
	}
	return out
}

func variedList(v []FieldCount) string {
	var parts []string
	for _, f := range v {
		parts = append(parts, fmt.Sprintf("%s (%d %s)", f.Field, f.Cases, plural(f.Cases, "case", "cases")))
	}
	return strings.Join(parts, ", ")
}

// warn adds the comparison-wide warnings.
func (c *SuiteComparison) warn(clustered bool, level float64) {
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
	if e, ok := c.effect(MetricPassRate); ok && e.Interval != nil && c.Flips.PassToFail+c.Flips.FailToPass > 0 {
		flips := c.Flips.PassToFail + c.Flips.FailToPass
		mcnemar := significantP(c.Flips.PValue, level)
		test := intervalTest(e, level)
		switch {
		case e.Significant && !mcnemar:
			add(WarnTestsDisagree, "tests disagree: the %s of the pass rate excludes 0, but McNemar's exact test on the %d %s whose verdict flipped is not significant (p = %s); the interval weighs every case's pass rate, the test only the flips — add cases or repetitions before acting on either",
				test, flips, plural(flips, "case", "cases"), formatP(c.Flips.PValue))
		case !e.Significant && mcnemar:
			add(WarnTestsDisagree, "tests disagree: McNemar's exact test on the %d %s whose verdict flipped is significant (p = %s), but the %s of the pass rate includes 0; the test counts flipped verdicts only, the interval weighs every case's pass rate",
				flips, plural(flips, "case", "cases"), formatP(c.Flips.PValue), test)
		}
	}
	if clustered && c.Flips.PassToFail+c.Flips.FailToPass > 0 {
		add(WarnMcNemarClusters, "McNemar with clusters: the test treats the %d paired cases as independent, but they fall into %d clusters; rely on the clustered interval of the pass rate",
			c.Counts.Paired, c.Counts.Clusters)
	}
}

// effect is the paired effect of metric name, if reported.
func (c *SuiteComparison) effect(name string) (Effect, bool) {
	for _, e := range c.Effects {
		if e.Metric == name {
			return e, true
		}
	}
	return Effect{}, false
}

func moved(e Effect) string {
	if e.Delta < 0 {
		return "fell"
	}
	return "rose"
}

// intervalTest names the test an effect's significance rests on: "95% t
// interval".
func intervalTest(e Effect, level float64) string {
	if e.Interval == nil {
		return levelPct(level) + " interval"
	}
	return fmt.Sprintf("%s %s interval", levelPct(e.Interval.Level), e.Interval.Method)
}

// metricStatement says what an effect shows and the test it rests on:
// "pass rate fell (95% t interval excludes 0): -15.0 pts [-26.0 pts,
// -4.0 pts] over 20 cases in 8 clusters".
func metricStatement(e Effect) string {
	label := metricLabel(e.Metric)
	iv := e.Interval
	if iv == nil {
		return fmt.Sprintf("%s: no interval (%s)", label, e.Unavailable)
	}
	test := intervalTest(e, iv.Level)
	head := fmt.Sprintf("%s: no significant change (%s includes 0)", label, test)
	if e.Significant {
		head = fmt.Sprintf("%s %s (%s excludes 0)", label, moved(e), test)
	}
	return head + ": " + effectSummary(e)
}

// effectSummary is "-15.0 pts [-26.0 pts, -4.0 pts] over 20 cases in 8
// clusters", with a note when too few units make the interval useless.
func effectSummary(e Effect) string {
	iv := e.Interval
	if iv == nil {
		return formatDelta(e.Unit, e.Delta)
	}
	units := fmt.Sprintf("%d %s", e.Cases, plural(e.Cases, "case", "cases"))
	if iv.Clustered {
		units += fmt.Sprintf(" in %d clusters", iv.Units)
	}
	s := fmt.Sprintf("%s [%s, %s] over %s", formatDelta(e.Unit, e.Delta), formatDelta(e.Unit, iv.Lower), formatDelta(e.Unit, iv.Upper), units)
	if bounded(e.Unit) && iv.Units < minExactUnits(iv.Level) {
		s += " (too few for a useful interval)"
	}
	return s
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
