package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/textline"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

func viewCommand() command {
	return command{
		name:    "view",
		args:    "[flags] [run or suite directory | case id | latest | label:NAME]",
		summary: "list recorded runs and suites, or show one run or suite",
		doc: `Without an argument, list the latest -n (20) suites and runs under
-runs-root, saying how many there are in all. With a
suite directory, print its results table; with a run directory, print the
run: exit, provenance, usage, grading and its last events (tool calls with
their input, each event with its time since the run started; the harness's
lifecycle events with -v). "latest" is the suite that started last (the
latest run when there is no suite), "label:NAME" the newest suite run with
-label NAME; a case id is that case's latest run.

With -serve, serve the records under -runs-root as HTML pages on -addr (a
loopback address only) until interrupted: an index of suites and runs, each
suite with its case table, each run with its whole trajectory (read when its
page is opened), each experiment, the comparison of any two suites, and
two runs of a case side by side. -labels DATASET shows on each run's page
the labels of its run beside the grading, disagreements marked.`,
		setup: viewFlags,
	}
}

func viewFlags(fs *flag.FlagSet) action {
	var root string
	runsRootFlag(fs, &root)
	limit := fs.Int("n", 20, "how many of the latest runs and suites to list (0: all)")
	events := fs.Int("events", 10, "how many of the last events to show for a run (0: all)")
	verbose := fs.Bool("v", false, "also show the harness's lifecycle events")
	asJSON := jsonFlag(fs, "the listing (lux.records/v1), suite (lux.suite/v1) or run (lux.run-record/v1)")
	serve := fs.Bool("serve", false, "serve the records as HTML pages on -addr until interrupted")
	labelsPath := fs.String("labels", "", "with -serve, show on each run's page the labels of this dataset (lux annotate writes it; read when the server starts) beside the grading")
	addr := fs.String("addr", "127.0.0.1:7878", "the loopback address and port -serve listens on (port 0: any free port)")
	return func(ctx context.Context, e *env, args []string) int {
		root = projectRunsRoot(e, fs, root)
		if *serve {
			if len(args) > 0 {
				return e.usageError("view", "-serve serves the whole -runs-root; give no directory")
			}
			set, err := loadLabels(*labelsPath)
			if err != nil {
				e.errorf("view: %v", err)
				return ExitUsage
			}
			return serveRecords(ctx, e, root, *addr, set)
		}
		if *labelsPath != "" {
			return e.usageError("view", "-labels goes with -serve")
		}
		return view(ctx, e, viewOptions{root: root, limit: *limit, events: *events, verbose: *verbose, json: *asJSON}, args)
	}
}

type viewOptions struct {
	root    string
	limit   int
	events  int // the last n events; 0: all
	verbose bool
	json    bool
}

func view(ctx context.Context, e *env, o viewOptions, args []string) int {
	switch len(args) {
	case 0:
		return listRecords(e, o)
	case 1:
		dir, err := resolveRecord(o.root, args[0])
		if err != nil {
			e.errorf("view: %v", err)
			return ExitUsage
		}
		// One record is shown only as sealed, every file of it checked
		// (or as unsealed, when it predates sealing).
		seal, err := record.VerifySeal(dir)
		if err != nil {
			e.errorf("view: %v", err)
			return ExitUsage
		}
		if _, err := os.Stat(filepath.Join(dir, record.SuiteFile)); err == nil {
			s, err := record.ReadSuite(dir)
			if err != nil {
				e.errorf("%v", err)
				return ExitUsage
			}
			rep, refusedRuns, refused := newSuiteReportChecked(s)
			code := ExitOK
			if o.json {
				code = e.writeJSON(rep)
			} else {
				rep.writeText(e.stdout)
				fmt.Fprintf(e.stdout, "seal: %s\n", sealText(seal))
			}
			// The suite's own files are as sealed; a run's record that is
			// not is refused, and so is the view.
			if refused != nil && code == ExitOK {
				if refusedRuns == 1 {
					e.errorf("view: a run record of the suite is refused (its row holds only what the suite's own record says): %v", refused)
				} else {
					e.errorf("view: %d run records of the suite are refused (their rows hold only what the suite's own record says); the first: %v", refusedRuns, refused)
				}
				return ExitUsage
			}
			return code
		}
		r, err := record.ReadRun(dir, record.ReadOptions{Events: true})
		if err != nil {
			e.errorf("%v", err)
			return ExitUsage
		}
		// Its artifacts and events are the ones run.json fingerprints.
		if _, err := record.VerifyEvidence(ctx, r); err != nil {
			e.errorf("view: %v", err)
			return ExitUsage
		}
		if o.json {
			rep := newRunReport(r, o.events)
			rep.Seal = seal
			return e.writeJSON(rep)
		}
		writeRunDetail(e.stdout, r, o)
		fmt.Fprintf(e.stdout, "seal:        %s\n", sealText(seal))
		return ExitOK
	default:
		return e.usageError("view", "give at most one run or suite directory, case id or \"latest\", got %d arguments", len(args))
	}
}

func listRecords(e *env, o viewOptions) int {
	rep, err := newRecordsReport(o.root, o.limit)
	if err != nil {
		e.errorf("%v", err)
		return ExitUsage
	}
	if o.json {
		return e.writeJSON(rep)
	}
	if len(rep.Suites) == 0 && len(rep.Runs) == 0 && len(rep.Experiments) == 0 {
		fmt.Fprintf(e.stdout, "no records under %s\n", o.root)
		return ExitOK
	}
	writeExperimentList(e.stdout, rep.Experiments)
	if len(rep.Suites) > 0 {
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "SUITE\tSTATUS\tRUNS\tPASSED\tFAILED\tUNGRADED\tLABEL")
		for _, s := range rep.Suites {
			if s.Unreadable != "" {
				fmt.Fprintf(tw, "%s\tunreadable: %s\t\t\t\t\n", s.Dir, s.Unreadable)
				continue
			}
			var t record.Outcome
			if s.Totals != nil {
				t = *s.Totals
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\n", s.Dir, s.Status, s.Runs, t.Passed, t.Failed, t.Ungraded, s.Label)
		}
		tw.Flush()
		writeCut(e.stdout, len(rep.Suites), rep.SuitesFound, "suites")
		fmt.Fprintln(e.stdout)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tCASE\tVERDICT\tSCORE\tEXIT\tDURATION")
	for _, r := range rep.Runs {
		if r.Unreadable != "" {
			fmt.Fprintf(tw, "%s\tunreadable: %s\t\t\t\t\n", r.Dir, r.Unreadable)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Dir, r.CaseID, verdictText(r.Verdict), r.scoreText, r.ExitReason, time.Duration(r.DurationMS)*time.Millisecond)
	}
	tw.Flush()
	writeCut(e.stdout, len(rep.Runs), rep.RunsFound, "runs")
	return ExitOK
}

// writeCut says that a listing shows only the latest shown of found
// records, and how to see more.
func writeCut(w io.Writer, shown, found int, what string) {
	if shown < found {
		fmt.Fprintf(w, "(the latest %d of %d %s; -n 0 lists them all, -n N the latest N)\n", shown, found, what)
	}
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

func scoreText(g *record.Grading) string {
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

func writeRunDetail(w io.Writer, r *record.Run, o viewOptions) {
	m := r.Metadata
	fmt.Fprintf(w, "run:         %s\n", r.Dir)
	fmt.Fprintf(w, "case:        %s\n", m.CaseID)
	if r.Case != nil {
		fmt.Fprintf(w, "prompt:      %s\n", textline.One(r.Case.Prompt, 200))
	}
	fmt.Fprintf(w, "exit:        %s", m.ExitReason)
	if m.Reason != "" {
		fmt.Fprintf(w, " — %s", textline.One(m.Reason, 300))
	}
	fmt.Fprintln(w)
	if f := m.OperationalFailure; f != nil {
		fmt.Fprintf(w, "harness:     %s failed: %s\n", f.Phase, textline.One(f.Reason, 300))
	}
	writeAttempts(w, m.Attempts)
	fmt.Fprintf(w, "driver:      %s (agent %s", m.Driver.Name, m.Driver.AgentID)
	if m.Driver.Model != "" {
		fmt.Fprintf(w, ", model %s", m.Driver.Model)
	}
	fmt.Fprintln(w, ")")
	for _, c := range m.Provenance.Runtime.Commands {
		fmt.Fprintln(w, strings.TrimSpace("command:     "+c.Name+" "+c.Version))
	}
	writeSandbox(w, m.Provenance.Sandbox)
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
	fmt.Fprintf(w, "verdict:     %s\n", verdictText(record.RunVerdict(m, g)))
	fmt.Fprintf(w, "grading:     score %s\n", scoreText(g))
	if g != nil {
		for _, a := range g.Assertions {
			mark := "✗"
			if a.Passed {
				mark = "✓"
			}
			name := a.Name
			if a.ID != "" && a.ID != a.Name {
				name = a.ID + ": " + a.Name
			}
			line := fmt.Sprintf("%s %s (%.2f)", mark, name, a.Score)
			switch {
			case a.Error != "":
				line = fmt.Sprintf("! %s — could not grade: %s", name, textline.Keep(a.Error, textline.DetailBytes))
			case a.Comment != "":
				line += " — " + textline.Keep(a.Comment, textline.DetailBytes)
			}
			indent(w, "  ", line) // a comment's further lines under it
		}
		if g.Incomplete != nil {
			fmt.Fprintf(w, "  (incomplete: %s in %s)\n", g.Incomplete.ExitReason, g.Incomplete.Phase)
		}
	}
	writeEvents(w, r, o)
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

// sealText says what the seal of a record showed.
func sealText(s record.SealState) string {
	if s == record.SealVerified {
		return "verified (every file of the record is as the harness sealed it)"
	}
	return "unsealed (recorded before records were sealed: nothing verifies it)"
}

// writeSandbox writes the sandbox line of a run's detail: the level the
// agent ran at and, in brackets, what confined it and what the machine
// refused, as run.json records them.
func writeSandbox(w io.Writer, in *sandbox.Info) {
	if in == nil {
		fmt.Fprintln(w, "sandbox:     not recorded")
		return
	}
	var parts []string
	if in.LandlockABI > 0 {
		parts = append(parts, fmt.Sprintf("Landlock ABI %d", in.LandlockABI))
	}
	if l := in.Limits; l != nil {
		var lim []string
		if l.Processes > 0 {
			lim = append(lim, fmt.Sprintf("%d processes%s", l.Processes, by(in.ProcessLimit)))
		}
		if l.MemoryBytes > 0 {
			lim = append(lim, fmt.Sprintf("%d MiB memory%s", l.MemoryBytes>>20, by(in.MemoryLimit)))
		}
		if l.FileBytes > 0 {
			lim = append(lim, fmt.Sprintf("%d MiB per file", l.FileBytes>>20))
		}
		if l.CPUSeconds > 0 {
			lim = append(lim, fmt.Sprintf("%d s of CPU", l.CPUSeconds))
		}
		if len(lim) > 0 {
			parts = append(parts, "limits: "+strings.Join(lim, ", "))
		}
	}
	if len(in.ConnectPorts) > 0 {
		ports := make([]string, len(in.ConnectPorts))
		for i, p := range in.ConnectPorts {
			ports[i] = strconv.Itoa(p)
		}
		parts = append(parts, "TCP connect to ports "+strings.Join(ports, ", "))
	}
	if in.Network != "" {
		parts = append(parts, "network: "+in.Network)
	}
	if in.Seccomp != "" {
		parts = append(parts, "seccomp denies: "+in.Seccomp)
	}
	if len(in.Denied) > 0 {
		parts = append(parts, "proxy denied: "+strings.Join(in.Denied, ", "))
	}
	if len(in.Refused) > 0 {
		parts = append(parts, "refused: "+strings.Join(in.Refused, "; "))
	}
	fmt.Fprintf(w, "sandbox:     %s", in.Level)
	if len(parts) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(parts, "; "))
	}
	fmt.Fprintln(w)
	for _, a := range in.AgentSandbox {
		fmt.Fprintf(w, "             agent's own sandbox: %s\n", a)
	}
}

// by names how a limit is enforced, when known.
func by(how string) string {
	if how == "" {
		return ""
	}
	return " by " + how
}
