package compare

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/luxeval/lux/record"
)

// labelWidth is the column at which values start in the text reports.
const labelWidth = 18

// WriteText writes the comparison for people: the two runs, the verdict
// and the gate, identity mismatches with their diffs, the run deltas, the
// grading deltas and the artifact changes. Usage an agent did not report
// reads "unavailable", never 0.
func (c *RunComparison) WriteText(w io.Writer) error {
	t := &textWriter{w: w}
	t.line("A: %s", orInMemory(c.A.Dir))
	t.line("B: %s", orInMemory(c.B.Dir))
	if c.A.CaseID == c.B.CaseID {
		t.line("Case: %s", c.A.CaseID)
	} else {
		t.line("Case: %s → %s", c.A.CaseID, c.B.CaseID)
	}
	t.line("")
	writeVerdict(t, c.Verdict, c.Reasons, c.Gate, nil)

	if len(c.Mismatches) > 0 {
		t.line("")
		t.line("Identity mismatches:")
		for _, m := range c.Mismatches {
			t.writeMismatch(2, m)
		}
		t.acceptAll(c.Mismatches)
	}

	r := c.Run
	t.line("")
	t.line("Run:")
	exit := fmt.Sprintf("%s → %s", orUnknown2(string(r.ExitReason.A)), orUnknown2(string(r.ExitReason.B)))
	t.row(2, labelWidth, "exit", exit)
	for i, why := range []string{r.Reason.A, r.Reason.B} {
		if why != "" {
			t.row(4, labelWidth-2, "AB"[i:i+1]+" reason", why)
		}
	}
	for i, f := range []*record.OperationalFailure{r.OperationalFailure.A, r.OperationalFailure.B} {
		if f != nil {
			t.row(4, labelWidth-2, "AB"[i:i+1]+" failure", string(f.Phase)+": "+f.Reason)
		}
	}
	da, db := float64(r.DurationMs.A), float64(r.DurationMs.B)
	t.row(2, labelWidth, "duration", changeLine(formatMs(da, true), formatMs(db, true), &[2]float64{da, db}, "ms"))
	t.row(2, labelWidth, "interrupts", fmt.Sprintf("%s → %s", interrupts(r.Interrupts.A), interrupts(r.Interrupts.B)))
	t.row(2, labelWidth, "tool calls", fmt.Sprintf("%s → %s", toolCalls(r.ToolCalls.A), toolCalls(r.ToolCalls.B)))
	t.row(2, labelWidth, "artifacts", fmt.Sprintf("%s → %s", artifacts(r.Artifacts.A), artifacts(r.Artifacts.B)))
	switch {
	case r.AgentTokens.A == nil && r.AgentTokens.B == nil && r.AgentCostUSD.A == nil && r.AgentCostUSD.B == nil:
		t.row(2, labelWidth, "agent usage", "not reported by either run")
	default:
		if r.AgentTokens.A != nil || r.AgentTokens.B != nil {
			t.row(2, labelWidth, "agent tokens", changeLine(tokensOrUnavailable(r.AgentTokens.A), tokensOrUnavailable(r.AgentTokens.B), ptrDelta(r.AgentTokens.A, r.AgentTokens.B), "tokens"))
		}
		if r.AgentCostUSD.A != nil || r.AgentCostUSD.B != nil {
			t.row(2, labelWidth, "agent cost", changeLine(costOrUnavailable(r.AgentCostUSD.A), costOrUnavailable(r.AgentCostUSD.B), ptrDelta(r.AgentCostUSD.A, r.AgentCostUSD.B), "usd"))
		} else {
			t.row(2, labelWidth, "agent cost", "not reported by either run")
		}
	}
	ha, hb := float64(r.HarnessTokens.A), float64(r.HarnessTokens.B)
	t.row(2, labelWidth, "harness tokens", fmt.Sprintf("%s  (answerer %d → %d, judge %d → %d)",
		changeLine(trimFloat(ha, 0), trimFloat(hb, 0), &[2]float64{ha, hb}, "tokens"),
		r.AnswererTokens.A, r.AnswererTokens.B, r.JudgeTokens.A, r.JudgeTokens.B))
	if hc := r.HarnessCostUSD; hc.A != 0 || hc.B != 0 || r.HarnessUnpricedCalls.A != 0 || r.HarnessUnpricedCalls.B != 0 {
		line := fmt.Sprintf("%s  (answerer %s → %s, judge %s → %s)",
			changeLine(formatValue("usd", hc.A), formatValue("usd", hc.B), &[2]float64{hc.A, hc.B}, "usd"),
			formatValue("usd", r.AnswererCostUSD.A), formatValue("usd", r.AnswererCostUSD.B),
			formatValue("usd", r.JudgeCostUSD.A), formatValue("usd", r.JudgeCostUSD.B))
		if u := r.HarnessUnpricedCalls; u.A != 0 || u.B != 0 {
			line += fmt.Sprintf("; unpriced calls %d → %d (their cost is unknown)", u.A, u.B)
		}
		t.row(2, labelWidth, "harness cost", line)
	}

	g := c.Grading
	t.line("")
	t.line("Grading:")
	t.row(2, labelWidth, "verdict", fmt.Sprintf("%s → %s", g.Verdict.A, g.Verdict.B))
	for i, inc := range []*record.Incomplete{g.Incomplete.A, g.Incomplete.B} {
		if inc != nil {
			t.row(4, labelWidth-2, "AB"[i:i+1]+" incomplete", strings.TrimSuffix(fmt.Sprintf("%s phase, %s: %s", inc.Phase, inc.ExitReason, inc.Reason), ": "))
		}
	}
	var sd *[2]float64
	if g.Score.A != nil && g.Score.B != nil {
		sd = &[2]float64{*g.Score.A, *g.Score.B}
	}
	t.row(2, labelWidth, "score", changeLine(fmtScore(g.Score.A), fmtScore(g.Score.B), sd, "count"))
	for i, ok := range []bool{g.Available.A, g.Available.B} {
		if !ok {
			t.row(4, labelWidth-2, "AB"[i:i+1], "has no grading.json")
		}
	}
	n := g.Counts
	t.row(2, labelWidth, "assertions", fmt.Sprintf("%d regressed, %d improved, %d score changes, %d ungraded, %d added, %d removed, %d unchanged",
		n.Regressed, n.Improved, n.ScoreUp+n.ScoreDown, n.Ungraded, n.Added, n.Removed, n.Unchanged))
	for _, ad := range g.Assertions {
		if ad.Status == StatusUnchanged {
			continue
		}
		t.line("    %s %s: %s  %s", statusMark[ad.Status], ad.Key, assertionChange(ad), ad.Name)
	}

	a := c.Artifacts
	t.line("")
	t.line("Artifacts: %d added, %d removed, %d changed, %d unchanged", len(a.Added), len(a.Removed), len(a.Changed), a.Unchanged)
	for _, p := range a.Added {
		t.line("  + %s", p)
	}
	for _, p := range a.Removed {
		t.line("  - %s", p)
	}
	diffs := map[string]ArtifactDiff{}
	for _, d := range a.Diffs {
		diffs[d.Path] = d
	}
	for _, p := range a.Changed {
		d, ok := diffs[p]
		switch {
		case !ok:
			t.line("  ~ %s", p)
		case d.Binary:
			t.line("  ~ %s (binary)", p)
		case d.Note != "":
			t.line("  ~ %s (%s)", p, d.Note)
		default:
			t.line("  ~ %s", p)
			t.block(6, d.Diff)
			if d.MoreLines > 0 {
				t.line("      … %d more diff lines", d.MoreLines)
			}
		}
	}
	return t.err
}

// statusMark is the mark of an assertion's change.
var statusMark = map[AssertionStatus]string{
	StatusRegressed: "↓",
	StatusImproved:  "↑",
	StatusScoreUp:   "↗",
	StatusScoreDown: "↘",
	StatusUngraded:  "?",
	StatusAdded:     "+",
	StatusRemoved:   "-",
	StatusUnchanged: "=",
}

func assertionChange(ad AssertionDelta) string {
	side := func(s *AssertionState) string {
		if s == nil {
			return "absent"
		}
		if s.Passed == nil {
			return "ungraded (" + s.Error + ")"
		}
		return s.verdict() + " " + trimFloat(s.Score, 3)
	}
	return side(ad.A) + " → " + side(ad.B)
}

// writeVerdict writes the verdict and its reasons, then the gate: each
// rule it checked, failed ones first, with the test it rests on and what
// it found. sub, when not nil, may give a check a shorter detail and the
// lines to write under it.
func writeVerdict(t *textWriter, v Verdict, reasons []string, g Gate, sub func(GateCheck) (string, []string)) {
	t.line("Verdict: %s", v)
	for _, r := range reasons {
		t.line("  - %s", r)
	}
	if g.Failed {
		t.line("Gate: FAILED")
	} else {
		t.line("Gate: passed")
	}
	checks := slices.Clone(g.Checks)
	slices.SortStableFunc(checks, func(x, y GateCheck) int { return boolRank(y.Failed) - boolRank(x.Failed) })
	for _, ch := range checks {
		mark := "✓"
		if ch.Failed {
			mark = "✗"
		}
		detail, lines := ch.Detail, []string(nil)
		if sub != nil {
			if d, ls := sub(ch); d != "" {
				detail, lines = d, ls
			}
		}
		t.line("  %s %s (%s): %s", mark, checkLabel(ch), ch.Test, detail)
		for _, l := range lines {
			t.line("      %s", l)
		}
	}
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkLabel is how the text names a gate rule.
func checkLabel(ch GateCheck) string {
	switch ch.Rule {
	case GateMetric:
		return metricLabel(ch.Metric)
	case GateCaseFalls:
		return "case falls"
	case GateUntestedFalls:
		return "untested falls"
	case GateSignTest:
		return "sign test"
	}
	return ch.Rule
}

// changeLine is "a → b  ↑ +d" when both values are known, else "a → b".
func changeLine(a, b string, values *[2]float64, unit string) string {
	if values == nil {
		return a + " → " + b
	}
	d := values[1] - values[0]
	if d == 0 {
		return a + " → " + b + "  ="
	}
	return fmt.Sprintf("%s → %s  %s %s", a, b, arrow(d), formatDelta(unit, d))
}

func ptrDelta[T int64 | float64](a, b *T) *[2]float64 {
	if a == nil || b == nil {
		return nil
	}
	return &[2]float64{float64(*a), float64(*b)}
}

func tokensOrUnavailable(p *int64) string {
	if p == nil {
		return "unavailable"
	}
	return fmt.Sprint(*p)
}

func costOrUnavailable(p *float64) string {
	if p == nil {
		return "unavailable"
	}
	return formatValue("usd", *p)
}

func interrupts(c record.InterruptCounts) string {
	return fmt.Sprintf("ask %d, approve %d, custom %d", c.Ask, c.Approve, c.Custom)
}

func toolCalls(o record.ToolOutcomes) string {
	return fmt.Sprintf("%d (%d failed, %d unresolved)", o.Total, o.Failed, o.Unresolved)
}

func artifacts(s record.ArtifactStats) string {
	return fmt.Sprintf("%d %s, %d B", s.Count, plural(s.Count, "file", "files"), s.Bytes)
}

func orInMemory(dir string) string {
	if dir == "" {
		return "(in memory)"
	}
	return dir
}

func orUnknown2(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
