package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

func viewCmd(_ context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("lux view", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	root := fs.String("runs-root", record.DefaultRoot, "directory the records are under")
	limit := fs.Int("n", 20, "how many of the latest runs and suites to list")
	events := fs.Int("events", 10, "how many of the last events to show for a run")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "Usage: lux view [flags] [run or suite directory]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return ExitUsage
	}
	switch fs.NArg() {
	case 0:
		return listRecords(e, *root, *limit)
	case 1:
		dir := fs.Arg(0)
		if _, err := os.Stat(filepath.Join(dir, record.SuiteFile)); err == nil {
			s, err := record.ReadSuite(dir)
			if err != nil {
				e.errorf("%v", err)
				return ExitUsage
			}
			writeSuiteTable(e.stdout, s.Dir, s.Manifest, s.Summary)
			return ExitOK
		}
		r, err := record.ReadRun(dir, record.ReadOptions{Events: true})
		if err != nil {
			e.errorf("%v", err)
			return ExitUsage
		}
		writeRunDetail(e.stdout, r, *events)
		return ExitOK
	default:
		e.errorf("view takes at most one directory")
		return ExitUsage
	}
}

func listRecords(e *env, root string, limit int) int {
	suites, err := record.FindSuites(root)
	if err != nil {
		e.errorf("%v", err)
		return ExitUsage
	}
	runs, err := record.FindRuns(root)
	if err != nil {
		e.errorf("%v", err)
		return ExitUsage
	}
	if len(suites) == 0 && len(runs) == 0 {
		fmt.Fprintf(e.stdout, "no records under %s\n", root)
		return ExitOK
	}
	if len(suites) > 0 {
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "SUITE\tSTATUS\tRUNS\tPASSED\tFAILED\tUNGRADED")
		for _, dir := range latest(suites, limit) {
			s, err := record.ReadSuite(dir)
			if err != nil {
				fmt.Fprintf(tw, "%s\tunreadable: %v\t\t\t\t\n", dir, err)
				continue
			}
			var o record.Outcome
			if s.Summary != nil {
				o = s.Summary.Totals
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\n", dir, s.Manifest.LiveStatus(), len(s.Manifest.Items), o.Passed, o.Failed, o.Ungraded)
		}
		tw.Flush()
		fmt.Fprintln(e.stdout)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tCASE\tVERDICT\tSCORE\tEXIT\tDURATION")
	for _, dir := range latest(runs, limit) {
		m, g, err := record.ReadMetadata(dir)
		if err != nil {
			fmt.Fprintf(tw, "%s\tunreadable: %v\t\t\t\t\n", dir, err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", dir, m.CaseID, g.Verdict(), scoreText(g), m.ExitReason, m.Duration().Round(1e7))
	}
	tw.Flush()
	return ExitOK
}

// latest returns the last n of dirs, which are in recording order per case;
// sorting by base name (a timestamp) orders them across cases.
func latest(dirs []string, n int) []string {
	sorted := append([]string(nil), dirs...)
	sortByBase(sorted)
	if n > 0 && len(sorted) > n {
		sorted = sorted[len(sorted)-n:]
	}
	return sorted
}

func sortByBase(dirs []string) {
	sort.SliceStable(dirs, func(i, j int) bool { return filepath.Base(dirs[i]) < filepath.Base(dirs[j]) })
}

func scoreText(g *lux.GradingReport) string {
	if g == nil || g.Score == nil {
		return "-"
	}
	passed, total := 0, len(g.Assertions)
	for _, a := range g.Assertions {
		if a.Passed {
			passed++
		}
	}
	return fmt.Sprintf("%.0f%% (%d/%d)", 100**g.Score, passed, total)
}

func tokensText(u *lux.TokenUsage) string {
	if u == nil {
		return "unavailable"
	}
	return fmt.Sprintf("%d (in %d, out %d, cache read %d, cache write %d)", u.Total(), u.Input, u.Output, u.CacheRead, u.CacheCreation)
}

func writeRunDetail(w io.Writer, r *record.Run, lastEvents int) {
	m := r.Metadata
	fmt.Fprintf(w, "run:         %s\n", r.Dir)
	fmt.Fprintf(w, "case:        %s\n", m.CaseID)
	if r.Case != nil {
		fmt.Fprintf(w, "prompt:      %s\n", oneLine(r.Case.Prompt, 200))
	}
	fmt.Fprintf(w, "exit:        %s", m.ExitReason)
	if m.Reason != "" {
		fmt.Fprintf(w, " — %s", oneLine(m.Reason, 300))
	}
	fmt.Fprintln(w)
	if f := m.OperationalFailure; f != nil {
		fmt.Fprintf(w, "harness:     %s failed: %s\n", f.Phase, oneLine(f.Reason, 300))
	}
	fmt.Fprintf(w, "driver:      %s (agent %s", m.Driver.Name, m.Driver.AgentID)
	if m.Driver.Model != "" {
		fmt.Fprintf(w, ", model %s", m.Driver.Model)
	}
	fmt.Fprintln(w, ")")
	for _, c := range m.Provenance.Runtime.Commands {
		fmt.Fprintf(w, "command:     %s %s\n", c.Name, c.Version)
	}
	if m.Answerer.Name != "" {
		fmt.Fprintf(w, "answerer:    %s\n", m.Answerer.Name)
	}
	if s := m.Provenance.Source; s != nil && s.CasePath != "" {
		fmt.Fprintf(w, "source:      %s", s.CasePath)
		if s.Git != nil {
			fmt.Fprintf(w, "@%.12s", s.Git.Commit)
			if s.Git.Dirty {
				fmt.Fprint(w, " (dirty)")
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "duration:    %s (agent %dms, collect %dms, grading %dms)\n", m.Duration().Round(1e6), m.Phases.Agent, m.Phases.Collect, m.Phases.Grading)
	ic := m.InterruptCounts
	fmt.Fprintf(w, "interrupts:  ask %d, approve %d, custom %d\n", ic.Ask, ic.Approve, ic.Custom)
	tc := m.ToolCalls
	fmt.Fprintf(w, "tool calls:  %d (%d ok, %d failed, %d unresolved)\n", tc.Total, tc.Succeeded, tc.Failed, tc.Unresolved)
	fmt.Fprintf(w, "agent:       %s", tokensText(m.Usage.Agent))
	if m.Usage.AgentCostUSD != nil {
		fmt.Fprintf(w, ", $%.4f", *m.Usage.AgentCostUSD)
	}
	fmt.Fprintln(w)
	h := m.Usage.Harness()
	fmt.Fprintf(w, "harness:     %s\n", tokensText(&h))
	g := r.Grading
	fmt.Fprintf(w, "grading:     %s, score %s\n", g.Verdict(), scoreText(g))
	if g != nil {
		for _, a := range g.Assertions {
			mark := "✗"
			if a.Passed {
				mark = "✓"
			}
			line := fmt.Sprintf("  %s %s (%.2f)", mark, a.Name, a.Score)
			switch {
			case a.Error != "":
				line = fmt.Sprintf("  ! %s — could not grade: %s", a.Name, oneLine(a.Error, 200))
			case a.Comment != "":
				line += " — " + oneLine(a.Comment, 200)
			}
			fmt.Fprintln(w, line)
		}
		if g.Incomplete != nil {
			fmt.Fprintf(w, "  (incomplete: %s in %s)\n", g.Incomplete.ExitReason, g.Incomplete.Phase)
		}
	}
	if n := len(r.Events); n > 0 && lastEvents > 0 {
		fmt.Fprintf(w, "last events (%d of %d):\n", min(lastEvents, n), n)
		for _, ev := range r.Events[max(0, n-lastEvents):] {
			fmt.Fprintf(w, "  %s\n", eventLine(ev))
		}
	}
	if len(r.Artifacts) > 0 {
		fmt.Fprintf(w, "artifacts (%d):\n", len(r.Artifacts))
		for i, a := range r.Artifacts {
			if i == 20 {
				fmt.Fprintf(w, "  ... %d more\n", len(r.Artifacts)-20)
				break
			}
			fmt.Fprintf(w, "  %s (%d bytes)\n", a.Path, a.Size)
		}
	}
}

func eventLine(ev lux.Event) string {
	switch ev.Type {
	case lux.EventReady:
		return "ready " + ev.Ready.AgentID
	case lux.EventProgress:
		p := ev.Progress
		switch {
		case p.Message != nil:
			return p.Kind + ": " + oneLine(p.Message.Text, 120)
		case p.ToolCall != nil:
			return "tool-call " + p.ToolCall.Name
		case p.ToolResult != nil:
			status := "ok"
			if p.ToolResult.IsError {
				status = "error"
			}
			return "tool-result " + p.ToolResult.Name + " (" + status + ")"
		}
		return "progress " + p.Kind
	case lux.EventInterrupt:
		return fmt.Sprintf("interrupt(%s): %s", ev.Interrupt.Kind, oneLine(ev.Interrupt.Text(), 120))
	case lux.EventResponded:
		a := ev.Answer
		switch a.Kind {
		case lux.Ask:
			return "responded(ask): " + oneLine(a.Text, 120)
		case lux.Approve:
			return fmt.Sprintf("responded(approve): %v %s", a.Approved, a.Reason)
		}
		return "responded(" + string(a.Kind) + ")"
	case lux.EventDone:
		return "done"
	case lux.EventError:
		return fmt.Sprintf("error(%s): %s", ev.Error.ExitReason, oneLine(ev.Error.Reason, 160))
	case lux.EventLifecycle:
		return "lifecycle " + string(ev.Stage)
	}
	return string(ev.Type)
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > max {
		return string([]rune(s)[:max]) + "…"
	}
	return s
}
