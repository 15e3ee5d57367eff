package compare

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// maxListed caps the per-case lines of a text report; the JSON form has all.
const maxListed = 50

// WriteText writes the comparison for people: both sides, the verdict and
// the gate, how the cases paired, identity mismatches per case, the paired
// effects with their intervals, the cases that changed, McNemar's test on
// the flips, and every warning.
func (c *SuiteComparison) WriteText(w io.Writer) error {
	t := &textWriter{w: w}
	t.line("A: %s", suiteLine(c.A))
	t.line("B: %s", suiteLine(c.B))
	t.line("")
	writeVerdict(t, c.Verdict, c.Reasons, c.Gate, c.gateCaseLines)

	t.line("")
	n := c.Counts
	units := ""
	if n.Clusters < n.Paired {
		units = fmt.Sprintf(" in %d clusters", n.Clusters)
	}
	t.line("Cases: %d paired%s, %d only in A, %d only in B, %d left out for identity mismatches",
		n.Paired, units, n.OnlyA, n.OnlyB, n.Mismatched)
	if len(c.OnlyA) > 0 {
		t.line("  only in A: %s", listSome(c.OnlyA, maxListed))
	}
	if len(c.OnlyB) > 0 {
		t.line("  only in B: %s", listSome(c.OnlyB, maxListed))
	}
	if len(c.Varied) > 0 {
		t.line("  varied on purpose: %s", variedList(c.Varied))
	}

	if len(c.Mismatches) > 0 {
		t.line("")
		t.line("Identity mismatches:")
		// Cases whose mismatches read the same are listed together.
		var order []string
		cases := map[string][]string{}
		for _, cm := range c.Mismatches {
			var b strings.Builder
			bt := &textWriter{w: &b}
			for _, m := range cm.Mismatches {
				bt.writeMismatch(4, m)
			}
			block := b.String()
			if _, ok := cases[block]; !ok {
				order = append(order, block)
			}
			cases[block] = append(cases[block], cm.CaseID)
		}
		for i, block := range order {
			if i == maxListed {
				t.line("  … %d more groups of cases", len(order)-maxListed)
				break
			}
			t.line("  ! %s", listSome(cases[block], 10))
			t.raw(block)
		}
		t.acceptAll(c.caseMismatches())
	}

	t.line("")
	if c.Counts.Paired == 0 {
		t.line("Paired effects: none (no case is paired)")
		return c.writeFlipsAndWarnings(t)
	}
	t.line("Paired effects (B - A, per-case means over paired cases; %s):", c.intervalNote())
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  metric\tA\tB\tchange\tinterval\tcases\t")
	var neither, unchanged []string
	rows := 0
	for _, e := range c.Effects {
		switch {
		case e.RunsWith.A == 0 && e.RunsWith.B == 0 && e.Interval == nil:
			neither = append(neither, metricLabel(e.Metric))
		case e.NoChange:
			unchanged = append(unchanged, metricLabel(e.Metric))
		default:
			fmt.Fprintln(tw, effectRow(e))
			rows++
		}
	}
	_ = tw.Flush()
	if rows > 0 {
		for _, l := range strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n") {
			t.line("%s", strings.TrimRight(l, " "))
		}
	}
	if len(unchanged) > 0 {
		t.line("  no change in any case: %s", strings.Join(unchanged, ", "))
	}
	for _, e := range c.Effects {
		switch {
		case e.RunsWith.A == 0 && e.RunsWith.B == 0 && e.Interval == nil:
		case e.Unavailable != "":
			t.line("  %s: unavailable: %s", metricLabel(e.Metric), e.Unavailable)
		case e.Dropped > 0:
			t.line("  %s: %d paired %s left out (not every run has it)", metricLabel(e.Metric), e.Dropped, plural(e.Dropped, "case", "cases"))
		}
	}
	if len(neither) > 0 {
		t.line("  not reported on either side: %s", strings.Join(neither, ", "))
	}

	return c.writeFlipsAndWarnings(t)
}

// writeFlipsAndWarnings writes McNemar's test on the flips, the cases
// that changed, and every warning.
func (c *SuiteComparison) writeFlipsAndWarnings(t *textWriter) error {
	t.line("")
	level := c.Settings.Level
	verdict := "not significant"
	if significantP(c.Flips.PValue, level) {
		verdict = "significant"
	}
	t.line("Flips: %d pass → fail, %d fail → pass; McNemar's exact test: p = %s, %s at %s",
		c.Flips.PassToFail, c.Flips.FailToPass, formatP(c.Flips.PValue), verdict, alphaPct(level))
	var changed []CaseDelta
	for _, cd := range c.Cases {
		if cd.Status != CaseUnchanged || cd.Passed.A != cd.Passed.B {
			changed = append(changed, cd)
		}
	}
	// Regressed first, then flips within the tolerance, then improved.
	rank := map[string]int{CaseRegressed: 0, CaseUnchanged: 1, CaseImproved: 2}
	slices.SortStableFunc(changed, func(x, y CaseDelta) int { return rank[x.Status] - rank[y.Status] })
	for i, cd := range changed {
		if i == maxListed {
			t.line("  … %d more cases", len(changed)-maxListed)
			break
		}
		mark := "↑"
		if cd.Status == CaseRegressed || cd.Status == CaseUnchanged && cd.Passed.A {
			mark = "↓"
		}
		flip := ""
		if cd.Status == CaseUnchanged {
			flip = ", passed → failed within the tolerance"
			if !cd.Passed.A {
				flip = ", failed → passed within the tolerance"
			}
		}
		p := cd.FallP
		if cd.PassRate.B > cd.PassRate.A {
			p = cd.RiseP
		}
		fisher := ""
		if cd.PassRate.A != cd.PassRate.B {
			fisher = ", Fisher one-sided p = " + formatP(p)
		}
		if cd.GateFailed {
			fisher += ": fails the gate (" + checkLabel(GateCheck{Rule: cd.GateRule}) + ")"
		}
		t.line("  %s %s: %s%s%s", mark, cd.CaseID, casePassLine(cd), flip, fisher)
	}

	if ws := c.allWarnings(); len(ws) > 0 {
		t.line("")
		t.line("Warnings:")
		for _, w := range ws {
			t.line("  - %s", w)
		}
	}
	return t.err
}

func suiteLine(s SuiteInfo) string {
	where := orInMemory(s.Dir)
	if s.SuiteID != "" && !strings.HasSuffix(s.Dir, s.SuiteID) {
		where += " (suite " + s.SuiteID + ")"
	}
	counts := fmt.Sprintf("%d passed, %d failed", s.Passed, s.Failed)
	if s.Errored > 0 {
		counts += fmt.Sprintf(", %d error", s.Errored)
	}
	if s.Cancelled > 0 {
		counts += fmt.Sprintf(", %d cancelled", s.Cancelled)
	}
	return fmt.Sprintf("%s: %d runs of %d cases, pass rate %s (%s, %d ungraded)",
		where, s.Runs, s.Cases, formatValue("fraction", s.PassRate), counts, s.Ungraded)
}

// intervalNote says how the intervals were computed.
func (c *SuiteComparison) intervalNote() string {
	s := c.Settings
	note := fmt.Sprintf("%g%% %s intervals", 100*s.Level, s.Method)
	if s.Resamples > 0 {
		note += fmt.Sprintf(", %d resamples, seed %d", s.Resamples, s.Seed)
	}
	if c.Counts.Clusters < c.Counts.Paired {
		note += fmt.Sprintf(", clustered (%d clusters)", c.Counts.Clusters)
	}
	return note
}

func effectRow(e Effect) string {
	label := "  " + metricLabel(e.Metric)
	if e.Cases == 0 {
		return label + "\tunavailable\tunavailable\t\t\t0\t"
	}
	row := fmt.Sprintf("%s\t%s\t%s\t%s %s", label, formatValue(e.Unit, e.A), formatValue(e.Unit, e.B), arrow(e.Delta), formatDelta(e.Unit, e.Delta))
	if e.Interval != nil {
		row += fmt.Sprintf("\t[%s, %s]", formatDelta(e.Unit, e.Interval.Lower), formatDelta(e.Unit, e.Interval.Upper))
	} else {
		row += "\tno interval"
	}
	row += fmt.Sprintf("\t%d\t", e.Cases)
	if e.Outcome != "" {
		row += e.Outcome
	}
	return row
}

// allWarnings lists the comparison's warnings, then each effect warning
// once with the metrics it concerns.
func (c *SuiteComparison) allWarnings() []string {
	var out []string
	for _, w := range c.Warnings {
		out = append(out, w.Message)
	}
	for _, w := range c.EffectWarnings {
		labels := make([]string, len(w.Metrics))
		for i, m := range w.Metrics {
			labels[i] = metricLabel(m)
		}
		out = append(out, fmt.Sprintf("%s [%s]", w.Message, strings.Join(labels, ", ")))
	}
	return out
}
