package compare

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/luxeval/lux/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// brokenCaseSuites writes two suites of three cases with reps runs each,
// written the way the orchestrator writes them; in B every run of c01
// fails. It is the smallest sure regression: one case that always passed
// now never does.
func brokenCaseSuites(t *testing.T, reps int) (a, b string) {
	t.Helper()
	root := t.TempDir()
	mk := func(broken bool) []spec {
		return grid(3, reps, func(i, _ int) spec {
			if broken && i == 1 {
				return fail(caseID(i), "")
			}
			return pass(caseID(i), "")
		})
	}
	a, _ = writeSuite(t, root, mk(false), suiteOpts{summary: true, runs: true})
	b, _ = writeSuite(t, root, mk(true), suiteOpts{summary: true, runs: true})
	return a, b
}

func suiteText(t *testing.T, c *SuiteComparison) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, c.WriteText(&buf))
	return buf.String()
}

func checkOf(t *testing.T, g Gate, rule string) GateCheck {
	t.Helper()
	for _, ch := range g.Checks {
		if ch.Rule == rule {
			return ch
		}
	}
	t.Fatalf("gate has no %q check: %+v", rule, g.Checks)
	return GateCheck{}
}

// A case that passed 3 of 3 runs and now passes 0 of 3 fails the default
// gate on its own (Fisher's exact test, one-sided p = 1/20), whatever the
// interval over three cases says; the text and the JSON name the case and
// the test.
func TestSureCaseRegressionFailsDefaultGate(t *testing.T) {
	a, b := brokenCaseSuites(t, 3)
	c, err := Suites(ctx, a, b, Options{})
	require.NoError(t, err)

	assert.True(t, c.Gate.Failed, "3/3 → 0/3 must fail the default gate")
	assert.Equal(t, Worse, c.Verdict)
	cd := caseOf(t, c, "c01")
	assert.True(t, cd.GateFailed)
	assert.InDelta(t, 0.05, cd.FallP, 1e-12)
	for _, id := range []string{"c00", "c02"} {
		assert.False(t, caseOf(t, c, id).GateFailed, id)
		assert.Equal(t, 1.0, caseOf(t, c, id).FallP, id)
	}
	ch := checkOf(t, c.Gate, GateCaseFalls)
	assert.True(t, ch.Failed)
	assert.Equal(t, []string{"c01"}, ch.Cases)
	assert.Contains(t, ch.Test, "Fisher")
	require.NotEmpty(t, c.Gate.Reasons)
	assert.Contains(t, strings.Join(c.Gate.Reasons, "\n"), "c01")

	text := suiteText(t, c)
	gate := text[strings.Index(text, "Gate: FAILED"):]
	gate = gate[:strings.Index(gate, "\n\n")]
	assert.Contains(t, gate, "c01: pass rate 100.0% → 0.0% (3 → 3 runs), one-sided p = 0.05")
	assert.Contains(t, gate, "Fisher's exact test")

	raw, err := json.Marshal(c)
	require.NoError(t, err)
	var doc struct {
		Gate struct {
			Failed bool `json:"failed"`
			Checks []struct {
				Rule   string   `json:"rule"`
				Test   string   `json:"test"`
				Failed bool     `json:"failed"`
				Cases  []string `json:"cases"`
				Detail string   `json:"detail"`
			} `json:"checks"`
		} `json:"gate"`
		Cases []struct {
			CaseID     string  `json:"caseId"`
			FallP      float64 `json:"fallP"`
			GateFailed bool    `json:"gateFailed"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	assert.True(t, doc.Gate.Failed)
	var failed []string
	for _, ch := range doc.Gate.Checks {
		assert.NotEmpty(t, ch.Test, ch.Rule)
		assert.NotEmpty(t, ch.Detail, ch.Rule)
		if ch.Failed {
			failed = append(failed, ch.Rule)
		}
	}
	assert.Equal(t, []string{GateCaseFalls}, failed)
	assert.True(t, doc.Cases[1].GateFailed)
}

// Two of two → zero of two cannot be significant on its own (p = 1/6, the
// smallest two runs a side allow): the default gate fails by the
// untested-falls rule and says so, naming the case, the p-value even all
// → none would have, and how many runs make a fall testable. The
// Fisher rule passes and says why.
func TestGateSaysWhichRuleDecided(t *testing.T) {
	a, b := brokenCaseSuites(t, 2)
	c, err := Suites(ctx, a, b, Options{})
	require.NoError(t, err)
	assert.True(t, c.Gate.Failed)
	assert.Equal(t, []string{GateUntestedFalls}, failedRules(c.Gate))
	ch := checkOf(t, c.Gate, GateUntestedFalls)
	assert.Contains(t, ch.Detail, "c01 (2/2 → 0/2 passed; even all → none has p = 0.167)")
	assert.Contains(t, ch.Detail, "with 3 runs a side a fall can be tested")
	fisher := checkOf(t, c.Gate, GateCaseFalls)
	assert.False(t, fisher.Failed)
	assert.Contains(t, fisher.Detail, "see untested falls")
	for _, ch := range c.Gate.Checks {
		assert.NotEmpty(t, ch.Test, ch.Rule)
	}
	text := suiteText(t, c)
	gate := text[strings.Index(text, "Gate: FAILED"):]
	gate = gate[:strings.Index(gate, "\n\n")]
	assert.Contains(t, gate, "✗ untested falls (no test:")
	assert.Contains(t, gate, "c01: pass rate 100.0% → 0.0% (2 → 2 runs); even all → none has p = 0.167")
	assert.Contains(t, gate, "✓ case falls (Fisher's exact test")

	// With a tolerance of one half, a fall of one run of two does not count.
	ra, rb := fallSuites(2, 2, 1, 2)
	c = rvCompare(t, rvSuite(ra...), rvSuite(rb...), Options{PassRateTolerance: 0.5})
	assert.False(t, c.Gate.Failed, c.Gate.Reasons)
	// -strict fails it.
	c = rvCompare(t, rvSuite(ra...), rvSuite(rb...), Options{PassRateTolerance: 0.5, Strict: true})
	assert.True(t, c.Gate.Failed)
	assert.Equal(t, []string{GateStrict}, failedRules(c.Gate))
}

// A pass-rate effect lies in [−100, +100] pts. Over three cases no
// interval can be useful (no exact paired test reaches 95 % with fewer
// than six units): the interval is the whole range, never significant,
// and a warning says so.
func TestPassRateIntervalStaysInItsRange(t *testing.T) {
	a, b := brokenCaseSuites(t, 3)
	for _, method := range []string{"", "t", "normal", "percentile-bootstrap", "hoeffding"} {
		c, err := Suites(ctx, a, b, Options{Method: stats.Method(method)})
		require.NoError(t, err)
		for _, metric := range []string{MetricPassRate, MetricScore} {
			e := effectOf(t, c, metric)
			require.NotNil(t, e.Interval, "%s %s", method, metric)
			assert.GreaterOrEqual(t, e.Interval.Lower, -1.0, "%s %s", method, metric)
			assert.LessOrEqual(t, e.Interval.Upper, 1.0, "%s %s", method, metric)
			assert.False(t, e.Significant, "%s %s: three cases cannot make a significant effect", method, metric)
			var msgs []string
			for _, w := range e.Warnings {
				msgs = append(msgs, w.Message)
			}
			assert.Contains(t, strings.Join(msgs, "\n"), "too few independent units for a useful interval (n=3)", "%s %s", method, metric)
		}
		text := suiteText(t, c)
		assert.NotContains(t, text, "176.8", method)
		assert.Contains(t, text, "too few independent units for a useful interval (n=3)", method)
	}
}

// Five cases that all flipped from pass to fail, one run each: McNemar's
// exact two-sided p is 0.0625, and nothing may say "fell significantly"
// beside it; the verdict is worse by the rules that decide it (each fall
// untested, and the one-sided sign test over the cases), and every
// statement names the test it rests on.
func TestNoSignificanceClaimBesideANonSignificantTest(t *testing.T) {
	root := t.TempDir()
	a, _ := writeSuite(t, root, grid(5, 1, func(i, _ int) spec { return pass(caseID(i), "") }), suiteOpts{summary: true})
	b, _ := writeSuite(t, root, grid(5, 1, func(i, _ int) spec { return fail(caseID(i), "") }), suiteOpts{summary: true})
	c, err := Suites(ctx, a, b, Options{})
	require.NoError(t, err)
	assert.InDelta(t, 0.0625, c.Flips.PValue, 1e-12)
	text := suiteText(t, c)
	assert.NotContains(t, text, "fell significantly")
	assert.Equal(t, Worse, c.Verdict)
	assert.Equal(t, []string{GateUntestedFalls, GateSignTest}, failedRules(c.Gate))
	assert.Contains(t, text, "McNemar's exact test")
	assert.Contains(t, text, "p = 0.0625, not significant at 5%")
	for _, r := range c.Reasons {
		assert.Regexp(t, verdictMethods, r, "each statement names its test")
	}

	// With ten cases (five flips, five unchanged) the t interval excludes
	// 0 while McNemar does not: each claim names its test and the
	// disagreement is a warning.
	a, _ = writeSuite(t, root, grid(10, 1, func(i, _ int) spec { return pass(caseID(i), "") }), suiteOpts{summary: true})
	b, _ = writeSuite(t, root, grid(10, 1, func(i, _ int) spec {
		if i < 5 {
			return fail(caseID(i), "")
		}
		return pass(caseID(i), "")
	}), suiteOpts{summary: true})
	c, err = Suites(ctx, a, b, Options{})
	require.NoError(t, err)
	text = suiteText(t, c)
	assert.NotContains(t, text, "fell significantly")
	assert.Contains(t, text, "t interval")
	assert.Contains(t, codes(c.Warnings), WarnTestsDisagree)
}
