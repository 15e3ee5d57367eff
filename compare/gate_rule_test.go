package compare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fallSuites are two in-memory suites: case "x" passes kA of nA runs in A
// and kB of nB in B; cases "s1" and "s2" pass every run on both sides, so
// that only x moves.
func fallSuites(kA, nA, kB, nB int) (a, b []rv) {
	side := func(k, n int) []rv {
		var out []rv
		for i := range n {
			if i < k {
				out = append(out, rvPass("x", 1))
			} else {
				out = append(out, rvFail("x", 1))
			}
			out = append(out, rvPass("s1", 1), rvPass("s2", 1))
		}
		return out
	}
	return side(kA, nA), side(kB, nB)
}

// The default gate at 95 %, repetitions × outcomes: a fall the runs could
// not have tested (not even all → none would reach 5 %) fails the gate,
// as the reference's rule at tolerance 0 does; a fall that could have been
// tested fails only when it is significant. The table under
// "Comparing runs and suites" in docs/compare-and-statistics.md is this table.
func TestGateRuleTable(t *testing.T) {
	for _, tc := range []struct {
		kA, nA, kB, nB int
		tolerance      float64
		rule           string // the rule that fails the gate; "" passes
		testable       bool
	}{
		{1, 1, 0, 1, 0, GateUntestedFalls, false},
		{1, 1, 0, 1, 0.5, GateUntestedFalls, false},
		{2, 2, 1, 2, 0, GateUntestedFalls, false},
		{2, 2, 1, 2, 0.5, "", false}, // a fall of exactly the tolerance does not count
		{2, 2, 0, 2, 0, GateUntestedFalls, false},
		{3, 3, 2, 3, 0, "", true},
		{3, 3, 1, 3, 0, "", true},
		{3, 3, 0, 3, 0, GateCaseFalls, true},
		{5, 5, 4, 5, 0, "", true},
		{5, 5, 2, 5, 0, "", true},
		{5, 5, 1, 5, 0, GateCaseFalls, true},
		{5, 5, 0, 1, 0, GateUntestedFalls, false}, // one run of B: all → none has p = 1/6
		{0, 1, 1, 1, 0, "", false},                // a rise never fails the gate
		{1, 1, 1, 1, 0, "", false},
	} {
		name := fmt.Sprintf("%d/%d→%d/%d tolerance %g", tc.kA, tc.nA, tc.kB, tc.nB, tc.tolerance)
		t.Run(name, func(t *testing.T) {
			ra, rb := fallSuites(tc.kA, tc.nA, tc.kB, tc.nB)
			c := rvCompare(t, rvSuite(ra...), rvSuite(rb...), Options{PassRateTolerance: tc.tolerance})
			x := caseOf(t, c, "x")
			assert.Equal(t, tc.testable, x.Testable, "testable")
			assert.Equal(t, tc.rule != "", c.Gate.Failed, "gate failed: %v", c.Gate.Reasons)
			assert.Equal(t, tc.rule != "", x.GateFailed)
			assert.Equal(t, tc.rule, x.GateRule)
			if tc.rule != "" {
				ch := checkOf(t, c.Gate, tc.rule)
				assert.True(t, ch.Failed)
				assert.Equal(t, []string{"x"}, ch.Cases)
				assert.Equal(t, Worse, c.Verdict)
			}
			for _, r := range c.Reasons {
				assert.Regexp(t, verdictMethods, r, "each reason names the method that decided it")
			}
			for _, r := range c.Gate.Reasons {
				assert.Regexp(t, verdictMethods, r, "each gate reason names the method that decided it")
			}
		})
	}
}

// verdictMethods are the names of the methods a verdict line may rest on.
const verdictMethods = `t interval|bootstrap interval|normal interval|hoeffding interval|clopper-pearson interval|Fisher|McNemar|sign test|no test|identity`

// One run per case, a case going from pass to fail: the most common CI
// set-up. No per-case test can reach 5 % with one run a side, so the fall
// fails the gate by the untested-falls rule, which says so.
func TestOneRepetitionRegressionFailsDefaultGate(t *testing.T) {
	a, b := brokenCaseSuites(t, 1)
	c, err := Suites(ctx, a, b, Options{})
	require.NoError(t, err)
	require.True(t, c.Gate.Failed, "1/1 → 0/1 must fail the default gate")
	assert.Equal(t, Worse, c.Verdict)
	cd := caseOf(t, c, "c01")
	assert.True(t, cd.GateFailed)
	assert.False(t, cd.Testable)
	assert.Equal(t, GateUntestedFalls, cd.GateRule)
	ch := checkOf(t, c.Gate, GateUntestedFalls)
	assert.True(t, ch.Failed)
	assert.Equal(t, []string{"c01"}, ch.Cases)
	assert.Contains(t, ch.Test, "no test")
	assert.Contains(t, ch.Detail, "p = 0.5")
	assert.False(t, checkOf(t, c.Gate, GateCaseFalls).Failed)

	text := suiteText(t, c)
	gate := text[strings.Index(text, "Gate: FAILED"):]
	gate = gate[:strings.Index(gate, "\n\n")]
	assert.Contains(t, gate, "c01: pass rate 100.0% → 0.0% (1 → 1 runs)")
	assert.Contains(t, gate, "untested falls")
	assert.Contains(t, text, "c01: pass rate 100.0% → 0.0% (1 → 1 runs), Fisher one-sided p = 0.5: fails the gate (untested falls)")
	for _, r := range c.Reasons {
		assert.Regexp(t, verdictMethods, r)
	}
}

// A fall that the runs could have tested and that is not significant
// passes the gate, and the gate says so: testable, not significant.
func TestTestableFallThatIsNotSignificantPasses(t *testing.T) {
	ra, rb := fallSuites(3, 3, 2, 3)
	c := rvCompare(t, rvSuite(ra...), rvSuite(rb...), Options{})
	require.False(t, c.Gate.Failed, c.Gate.Reasons)
	ch := checkOf(t, c.Gate, GateCaseFalls)
	assert.Contains(t, ch.Detail, "x 100.0% → 66.7% (3 → 3 runs, p = 0.5)")
	assert.Contains(t, ch.Detail, "could have shown a fall")
	assert.NotContains(t, ch.Detail, "not even a fall from all to none")
	un := checkOf(t, c.Gate, GateUntestedFalls)
	assert.False(t, un.Failed)
	text := suiteText(t, c)
	assert.Contains(t, text, "Gate: passed")
	assert.Contains(t, text, "not significant")
}

// Five cases, one run each, all from pass to fail: every case fails the
// gate untested, and the exact sign test over the cases (5 of 5 fell,
// one-sided p = 1/32) fails it too.
func TestFiveCasesOneRunAllFlipFailTheGate(t *testing.T) {
	var a, b []rv
	for i := range 5 {
		a = append(a, rvPass(caseID(i), 1))
		b = append(b, rvFail(caseID(i), 1))
	}
	c := rvCompare(t, rvSuite(a...), rvSuite(b...), Options{})
	require.True(t, c.Gate.Failed)
	assert.Equal(t, Worse, c.Verdict)
	st := checkOf(t, c.Gate, GateSignTest)
	assert.True(t, st.Failed)
	assert.Contains(t, st.Test, "sign test")
	assert.Contains(t, st.Detail, "5 of 5")
	assert.Contains(t, st.Detail, "p = 0.0312")
	assert.True(t, checkOf(t, c.Gate, GateUntestedFalls).Failed)
	for _, r := range c.Reasons {
		assert.Regexp(t, verdictMethods, r)
	}
}

// Cases that each fell a little, testable and not significant on their
// own, and together too few for a useful interval: the exact sign test
// over the cases closes that blind spot. Five of five falling is
// significant at 5 % one-sided (1/32); four of four is not (1/16), and
// the check says so.
func TestSignTestCatchesConsistentSmallFalls(t *testing.T) {
	mk := func(n int) (a, b []rv) {
		for i := range n {
			for r := range 3 {
				a = append(a, rvPass(caseID(i), 1))
				if r == 0 {
					b = append(b, rvFail(caseID(i), 1))
				} else {
					b = append(b, rvPass(caseID(i), 1))
				}
			}
		}
		return a, b
	}
	a, b := mk(5)
	c := rvCompare(t, rvSuite(a...), rvSuite(b...), Options{})
	require.True(t, c.Gate.Failed, "5 cases each 3/3 → 2/3")
	assert.Equal(t, Worse, c.Verdict)
	st := checkOf(t, c.Gate, GateSignTest)
	assert.True(t, st.Failed)
	assert.Len(t, st.Cases, 5)
	assert.False(t, checkOf(t, c.Gate, GateCaseFalls).Failed)
	assert.False(t, checkOf(t, c.Gate, GateUntestedFalls).Failed)
	assert.Contains(t, strings.Join(c.Reasons, "\n"), "sign test")

	a, b = mk(4)
	c = rvCompare(t, rvSuite(a...), rvSuite(b...), Options{})
	require.False(t, c.Gate.Failed, c.Gate.Reasons)
	st = checkOf(t, c.Gate, GateSignTest)
	assert.False(t, st.Failed)
	assert.Contains(t, st.Detail, "4 of 4")
	assert.Contains(t, st.Detail, "p = 0.0625")
}

// With clusters the sign test counts clusters, not cases: five cases in
// two clusters that all fell are two units, p = 1/4.
func TestSignTestCountsClusters(t *testing.T) {
	var a, b []rv
	for i := range 5 {
		cl := []string{"p", "q"}[i%2]
		for r := range 3 {
			a = append(a, rvPass(caseID(i), 1).in(cl))
			if r == 0 {
				b = append(b, rvFail(caseID(i), 1).in(cl))
			} else {
				b = append(b, rvPass(caseID(i), 1).in(cl))
			}
		}
	}
	c := rvCompare(t, rvSuite(a...), rvSuite(b...), Options{})
	st := checkOf(t, c.Gate, GateSignTest)
	assert.False(t, st.Failed)
	assert.Contains(t, st.Detail, "2 of 2 clusters")
	assert.Contains(t, st.Detail, "p = 0.25")
}

// The sign test works both ways for the verdict: five cases that each
// rose a little make B better, named by the test; the gate passes.
func TestSignTestRiseIsBetter(t *testing.T) {
	var a, b []rv
	for i := range 5 {
		for r := range 3 {
			b = append(b, rvPass(caseID(i), 1))
			if r == 0 {
				a = append(a, rvFail(caseID(i), 1))
			} else {
				a = append(a, rvPass(caseID(i), 1))
			}
		}
	}
	c := rvCompare(t, rvSuite(a...), rvSuite(b...), Options{})
	assert.False(t, c.Gate.Failed, c.Gate.Reasons)
	assert.Equal(t, Better, c.Verdict)
	require.NotEmpty(t, c.Reasons)
	assert.Equal(t, "pass rate rose in 5 of 5 cases that moved (exact sign test over cases, one-sided p = 0.0312)", c.Reasons[0])
}
