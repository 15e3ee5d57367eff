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
//     0 (for the pass rate: entirely below 0); or a case's pass rate fell
//     by more than the tolerance, significantly on its own runs (Fisher's
//     exact test, one-sided, p ≤ 1 − Level), or with too few runs for any
//     fall to be significant (untested falls); or, below stats.FewUnits
//     units, the exact sign test over the units shows a fall. The gate
//     fails.
//   - Better: a gate metric's interval lies entirely on its better side,
//     or a case rose significantly on its own, or the sign test shows a
//     rise, and nothing is worse. A rise that could not be tested is not
//     a claim of "better": only a fall counts untested.
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
		case e.NoChange:
			ch.Detail = noChangeSummary(e)
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

	fell, untested, rose := c.casesOnTheirOwn(level)
	c.Gate.check(c.caseFallsCheck(fell, st), "")
	c.Gate.check(c.untestedFallsCheck(untested, st), "")
	sign := c.signTestOf(st)
	c.Gate.check(sign.check(st), "")
	if st.strict {
		c.strictCheck()
	}

	switch {
	case len(notComparable) > 0:
		c.Verdict, c.Reasons = NotComparable, notComparable
	case len(worse) > 0 || len(fell) > 0 || len(untested) > 0 || sign.fellSignificantly(level):
		// What decided it first: the gate metrics that are worse, the sign
		// test, the cases; then the other gate metrics' statements.
		reasons := slices.Clone(worse)
		if sign.fellSignificantly(level) {
			reasons = append(reasons, sign.statement(false))
		}
		reasons = append(reasons, caseStatements(fell, "fell", func(cd CaseDelta) float64 { return cd.FallP })...)
		reasons = append(reasons, untestedStatements(untested)...)
		c.Verdict, c.Reasons = Worse, append(reasons, without(statements, worse)...)
	case len(better) > 0 || len(rose) > 0 || sign.roseSignificantly(level):
		reasons := slices.Clone(better)
		if sign.roseSignificantly(level) {
			reasons = append(reasons, sign.statement(true))
		}
		reasons = append(reasons, caseStatements(rose, "rose", func(cd CaseDelta) float64 { return cd.RiseP })...)
		c.Verdict, c.Reasons = Better, append(reasons, without(statements, better)...)
	default:
		c.Verdict, c.Reasons = NoDifference, statements
	}
	if c.Reasons == nil {
		c.Reasons = []string{}
	}
}

// without is xs less the lines in drop, in order.
func without(xs, drop []string) []string {
	return slices.DeleteFunc(slices.Clone(xs), func(x string) bool { return slices.Contains(drop, x) })
}

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
	if e.NoChange {
		return fmt.Sprintf("%s: %s", label, noChangeSummary(e))
	}
	test := intervalTest(e, iv.Level)
	head := fmt.Sprintf("%s: no significant change (%s includes 0)", label, test)
	if e.Significant {
		head = fmt.Sprintf("%s %s (%s excludes 0)", label, moved(e), test)
	}
	return head + ": " + effectSummary(e)
}

// noChangeSummary is "no change in any case (the 13 paired cases have
// the same value on both sides; no test needed)".
func noChangeSummary(e Effect) string {
	return fmt.Sprintf("no change in any case (%s the same value on both sides; no test needed)",
		plural(e.Cases, "the paired case has", fmt.Sprintf("all %d paired cases have", e.Cases)))
}

// effectSummary is "-15.0 pts [-26.0 pts, -4.0 pts] over 20 cases in 8
// clusters", with a note when too few units make the interval useless.
func effectSummary(e Effect) string {
	iv := e.Interval
	if iv == nil {
		return formatDelta(e.Unit, e.Delta)
	}
	if e.NoChange {
		return noChangeSummary(e)
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
