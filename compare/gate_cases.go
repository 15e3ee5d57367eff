package compare

import (
	"fmt"
	"math"

	"github.com/luxeval/lux/stats"
)

// The per-case rules of a suite gate (GateCaseFalls, GateUntestedFalls)
// and the sign test over the cases (GateSignTest).

// casesOnTheirOwn are the cases that fail the gate on their own, by
// Fisher's test (fell) or because their runs could not test a fall
// (untested), and those whose pass rate rose by more than the tolerance
// with a one-sided Fisher p-value at or below 1 − level (rose).
func (c *SuiteComparison) casesOnTheirOwn(level float64) (fell, untested, rose []CaseDelta) {
	for _, cd := range c.Cases {
		switch {
		case cd.GateRule == GateCaseFalls:
			fell = append(fell, cd)
		case cd.GateRule == GateUntestedFalls:
			untested = append(untested, cd)
		case cd.Status == CaseImproved && significantP(cd.RiseP, level):
			rose = append(rose, cd)
		}
	}
	return fell, untested, rose
}

// caseTest names the per-case test.
func caseTest(level float64) string {
	return "Fisher's exact test per case, one-sided, α = " + alphaPct(level)
}

// untestedTest names what the untested-falls rule rests on: no test.
func untestedTest(level float64) string {
	return "no test: any fall counts where a case's runs are too few for Fisher's test to reach α = " + alphaPct(level)
}

// toleranceNote is " by more than the tolerance (+10.0 pts)", or "" at 0.
func toleranceNote(st settings) string {
	if st.tolerance > 0 {
		return fmt.Sprintf(" by more than the tolerance (%s)", formatDelta("fraction", st.tolerance))
	}
	return ""
}

// caseFallsCheck is the GateCaseFalls rule: it fails on the cases that
// fell significantly on their own, and otherwise says which cases fell
// that could have been tested, and that none of those falls is
// significant.
func (c *SuiteComparison) caseFallsCheck(fell []CaseDelta, st settings) GateCheck {
	level := st.cfg.Level
	ch := GateCheck{Rule: GateCaseFalls, Test: caseTest(level), Failed: len(fell) > 0}
	tol := toleranceNote(st)
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
	untested := 0
	for _, cd := range c.Cases {
		switch {
		case cd.Status != CaseRegressed:
		case !cd.Testable:
			untested++
		default:
			weak = append(weak, fmt.Sprintf("%s %s → %s (%d → %d runs, p = %s)", cd.CaseID,
				formatValue("fraction", cd.PassRate.A), formatValue("fraction", cd.PassRate.B), cd.Runs.A, cd.Runs.B, formatP(cd.FallP)))
		}
	}
	switch {
	case len(weak) == 0 && untested == 0:
		ch.Detail = "no case's pass rate fell" + tol
	case len(weak) == 0:
		ch.Detail = fmt.Sprintf("no case whose runs could show a fall fell%s (%d with too few runs did: see untested falls)", tol, untested)
	default:
		ch.Detail = fmt.Sprintf("%d %s fell%s whose runs could have shown a fall (all → none reaches %s), and no fall is significant: %s; run more repetitions, or use -strict (Options.Strict) to fail on any fall",
			len(weak), plural(len(weak), "case", "cases"), tol, alphaPct(level), listSome(weak, 10))
	}
	return ch
}

// untestedFallsCheck is the GateUntestedFalls rule: it fails on every case
// that fell beyond the tolerance with too few runs for any fall to be
// significant on its own, since no test could have cleared it.
func (c *SuiteComparison) untestedFallsCheck(untested []CaseDelta, st settings) GateCheck {
	level := st.cfg.Level
	need := minRunsAllToNone(level)
	ch := GateCheck{Rule: GateUntestedFalls, Test: untestedTest(level), Failed: len(untested) > 0}
	tol := toleranceNote(st)
	if ch.Failed {
		var parts []string
		for _, cd := range untested {
			ch.Cases = append(ch.Cases, cd.CaseID)
			parts = append(parts, fmt.Sprintf("%s (%d/%d → %d/%d passed; even all → none has p = %s)", cd.CaseID,
				passedRuns(cd.PassRate.A, cd.Runs.A), cd.Runs.A, passedRuns(cd.PassRate.B, cd.Runs.B), cd.Runs.B,
				formatP(allToNoneP(cd.Runs.A, cd.Runs.B))))
		}
		ch.Detail = fmt.Sprintf("%d %s fell%s with too few runs for any test to show a fall, so the fall counts: %s; with %d runs a side a fall can be tested, and only a significant one fails",
			len(untested), plural(len(untested), "case", "cases"), tol, listSome(parts, 10), need)
		return ch
	}
	few := 0
	for _, cd := range c.Cases {
		if !cd.Testable {
			few++
		}
	}
	if few == 0 {
		ch.Detail = "every case has enough runs to test a fall on its own"
		return ch
	}
	ch.Detail = fmt.Sprintf("no untestable case fell%s (%d of %d %s too few runs to test a fall; it takes %d a side)",
		tol, few, len(c.Cases), plural(few, "case has", "cases have"), need)
	return ch
}

// minRunsAllToNone is the fewest runs a side with which a fall from k of k
// to 0 of k is significant on its own: Fisher's p is 1/C(2k, k).
func minRunsAllToNone(level float64) int {
	for k := 1; ; k++ {
		if significantP(allToNoneP(k, k), level) {
			return k
		}
	}
}

// passedRuns recovers the number of passed runs from a pass rate.
func passedRuns(rate float64, runs int) int { return int(math.Round(rate * float64(runs))) }

// signTest is the exact sign test over the independent units (clusters
// when clustered, else cases) of the paired cases' pass-rate changes.
type signTest struct {
	applied      bool
	units        int // independent units
	fell, rose   int // units whose mean change is a fall (rise) beyond the tolerance
	pFall, pRise float64
	clustered    bool
	fellCases    []string // the cases of the units that fell
}

// signTestOf counts, per independent unit, whether the mean change of
// its cases' pass rates is a fall or a rise beyond the tolerance, and
// gives the one-sided exact p-values of the sign test: P(X ≤ rose) for a
// fall, X ~ Binomial(fell + rose, 1/2). It applies below stats.FewUnits
// units, where the interval is too wide or unreliable to catch cases that
// each fell a little.
func (c *SuiteComparison) signTestOf(st settings) signTest {
	type unit struct {
		sum   float64
		n     int
		cases []string
	}
	var order []string
	units := map[string]*unit{}
	clustered := false
	for _, cd := range c.Cases {
		key := "\x00" + cd.CaseID
		if cd.Cluster != "" {
			key, clustered = cd.Cluster, true
		}
		u, ok := units[key]
		if !ok {
			u = &unit{}
			units[key] = u
			order = append(order, key)
		}
		u.sum += cd.PassRate.B - cd.PassRate.A
		u.n++
		u.cases = append(u.cases, cd.CaseID)
	}
	s := signTest{units: len(order), clustered: clustered, pFall: 1, pRise: 1}
	s.applied = s.units > 0 && s.units < stats.FewUnits
	for _, key := range order {
		u := units[key]
		switch d := u.sum / float64(u.n); {
		case -d > st.tolerance+rateSlack:
			s.fell++
			s.fellCases = append(s.fellCases, u.cases...)
		case d > st.tolerance+rateSlack:
			s.rose++
		}
	}
	if n := s.fell + s.rose; n > 0 {
		s.pFall = stats.BinomialCDF(s.rose, n, 0.5)
		s.pRise = stats.BinomialCDF(s.fell, n, 0.5)
	}
	return s
}

// unitWord is "cases" or "clusters".
func (s signTest) unitWord(n int) string {
	if s.clustered {
		return plural(n, "cluster", "clusters")
	}
	return plural(n, "case", "cases")
}

// test names the sign test.
func (s signTest) test(level float64) string {
	return fmt.Sprintf("exact sign test over %s, one-sided, α = %s", s.unitWord(2), alphaPct(level))
}

// fellSignificantly and roseSignificantly say whether the test applies
// and is significant that way.
func (s signTest) fellSignificantly(level float64) bool {
	return s.applied && s.fell > 0 && significantP(s.pFall, level)
}

func (s signTest) roseSignificantly(level float64) bool {
	return s.applied && s.rose > 0 && significantP(s.pRise, level)
}

// statement is the verdict's line: "pass rate fell in 5 of 5 cases that
// moved (exact sign test over cases, one-sided p = 0.0312)".
func (s signTest) statement(rose bool) string {
	moved, k, p := "fell", s.fell, s.pFall
	if rose {
		moved, k, p = "rose", s.rose, s.pRise
	}
	n := s.fell + s.rose
	return fmt.Sprintf("pass rate %s in %d of %d %s that moved (exact sign test over %s, one-sided p = %s)",
		moved, k, n, s.unitWord(n), s.unitWord(2), formatP(p))
}

// check is the GateSignTest rule.
func (s signTest) check(st settings) GateCheck {
	level := st.cfg.Level
	ch := GateCheck{Rule: GateSignTest, Test: s.test(level), Failed: s.fellSignificantly(level)}
	n := s.fell + s.rose
	switch {
	case !s.applied && s.units == 0:
		ch.Detail = "not applied: no case is paired"
	case !s.applied:
		ch.Detail = fmt.Sprintf("not applied: %d independent units (%d or more); the interval of each gate metric decides", s.units, stats.FewUnits)
	case n == 0:
		ch.Detail = fmt.Sprintf("no %s's pass rate moved%s", s.unitWord(1), toleranceNote(st))
	default:
		ch.Detail = fmt.Sprintf("the pass rate fell in %d of %d %s that moved (%d rose), p = %s", s.fell, n, s.unitWord(n), s.rose, formatP(s.pFall))
		if ch.Failed {
			ch.Cases = s.fellCases
			ch.Detail += ": significant"
		} else {
			ch.Detail += ": not significant"
			if need := minSignUnits(level); s.fell == n && n < need {
				ch.Detail += fmt.Sprintf(" (it takes %d %s that all fell)", need, s.unitWord(need))
			}
		}
	}
	return ch
}

// minSignUnits is the fewest units that must all fall for the one-sided
// sign test to reach 1 − level: 1/2ⁿ ≤ 1 − level (5 at 95 %).
func minSignUnits(level float64) int {
	n := 1
	for !significantP(math.Pow(0.5, float64(n)), level) {
		n++
	}
	return n
}

// untestedStatements are the verdict's lines for cases that fell with too
// few runs to test the fall, at most ten and a count of the rest.
func untestedStatements(cases []CaseDelta) []string {
	var out []string
	for i, cd := range cases {
		if i == 10 {
			out = append(out, fmt.Sprintf("… and %d more %s fell with too few runs to test", len(cases)-10, plural(len(cases)-10, "case", "cases")))
			break
		}
		out = append(out, fmt.Sprintf("%s fell with too few runs to test (no test possible, so any fall counts): %s; even all → none has Fisher p = %s",
			cd.CaseID, casePassLine(cd), formatP(allToNoneP(cd.Runs.A, cd.Runs.B))))
	}
	return out
}

// gateCaseLines lists, under a per-case rule that failed, the cases that
// fail it, one a line.
func (c *SuiteComparison) gateCaseLines(ch GateCheck) (string, []string) {
	n := len(ch.Cases)
	var head string
	switch {
	case !ch.Failed:
		return "", nil
	case ch.Rule == GateCaseFalls:
		head = fmt.Sprintf("%d %s fell, significant on %s own:", n, plural(n, "case", "cases"), plural(n, "its", "their"))
	case ch.Rule == GateUntestedFalls:
		head = fmt.Sprintf("%d %s fell with too few runs for any test to show a fall, so the fall counts:", n, plural(n, "case", "cases"))
	default:
		return "", nil
	}
	var out []string
	for _, cd := range c.Cases {
		if cd.GateRule != ch.Rule {
			continue
		}
		if len(out) == maxListed {
			out = append(out, fmt.Sprintf("… %d more cases", n-maxListed))
			break
		}
		line := fmt.Sprintf("%s: %s, one-sided p = %s", cd.CaseID, casePassLine(cd), formatP(cd.FallP))
		if ch.Rule == GateUntestedFalls {
			line = fmt.Sprintf("%s: %s; even all → none has p = %s", cd.CaseID, casePassLine(cd), formatP(allToNoneP(cd.Runs.A, cd.Runs.B)))
		}
		out = append(out, line)
	}
	return head, out
}
