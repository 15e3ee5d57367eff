// Command quickstart runs a small suite of cases against echoagent, an
// example agent shipped in this repository that speaks the lux-jsonl
// protocol and needs no model or API key:
//
//	go run ./examples/quickstart
//
// It builds the agent, registers the subprocess driver, the scripted
// answerer and the built-in assertions, checks that everything is in place
// (preflight), runs four cases twice each, prints a table of the results
// and says where the records are. One case fails on purpose, to show what
// a failure looks like; the program still exits 0 when every case did
// what it was meant to.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/scripted"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/examples/internal/exsetup"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

func main() {
	root := flag.String("runs", record.DefaultRoot, "directory the run records go to")
	reps := flag.Int("repetitions", 2, "runs of each case")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := quickstart(ctx, os.Stdout, *root, *reps); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// failsOnPurpose is the case whose assertion is wrong on purpose.
const failsOnPurpose = "greeting-typo"

// cases returns the suite. fixtures is the directory of this example's fixtures.
func cases(fixtures string) []*lux.Case {
	return []*lux.Case{
		{
			ID:     "hello-file",
			Prompt: `Write hello.txt containing "Hello, lux!".`,
			Assertions: []lux.AssertionSpec{
				{Type: "run-succeeded"},
				{Type: "file-contains", ID: "greeting", Config: map[string]any{"path": "hello.txt", "text": "Hello, lux!"}},
				{Type: "tool-called", Config: map[string]any{"tool": "Write"}},
			},
		},
		{
			ID:       "favorite-color",
			Prompt:   `Ask "What is your favorite color?" and write the answer to color.txt.`,
			Requires: []lux.Capability{lux.CanAsk},
			Answerer: &lux.PluginRef{Name: scripted.Name, Config: scripted.Config{Rules: []scripted.Rule{
				scripted.Reply(`(?i)favorite color`, "teal"),
			}}},
			Assertions: []lux.AssertionSpec{
				{Type: "interrupt-count", Config: map[string]any{"kind": "ask", "min": 1, "max": 1}},
				{Type: "file-contains", Config: map[string]any{"path": "color.txt", "text": "teal"}},
			},
		},
		{
			ID:       "notes-summary",
			Prompt:   `Write SUMMARY.md containing "The notes ask for a summary.".`,
			Fixtures: fixtures,
			Assertions: []lux.AssertionSpec{
				{Type: "file-exists", Config: map[string]any{"path": "README.md"}},
				{Type: "file-contains", Config: map[string]any{"path": "SUMMARY.md", "text": "summary"}, Weight: 2},
			},
		},
		{
			ID:     failsOnPurpose,
			Prompt: `Write greeting.txt containing "Hi there".`,
			Assertions: []lux.AssertionSpec{
				{Type: "run-succeeded"},
				// Wrong on purpose: the agent was asked for "Hi there".
				{Type: "file-contains", ID: "expects-hello", Config: map[string]any{"path": "greeting.txt", "text": "Hello there"}},
			},
		},
	}
}

func quickstart(ctx context.Context, w io.Writer, root string, reps int) error {
	src := exsetup.SourceDir(filepath.Join("examples", "quickstart"))
	// The agent is built under the runs root, at the same path every time,
	// so that runs of different invocations record the same command and
	// driver config and stay comparable.
	agent, err := exsetup.BuildEchoAgent(ctx, filepath.Join(root, ".bin"))
	if err != nil {
		return err
	}

	reg := lux.NewRegistry()
	if err := errors.Join(
		reg.RegisterDriver(subprocess.Plugin()),
		reg.RegisterAnswerer(scripted.Plugin()),
		assertion.Register(reg),
	); err != nil {
		return err
	}
	start := time.Now()
	o := orchestrator.New(reg, orchestrator.Options{
		RunsRoot:      root,
		Concurrency:   2,
		Repetitions:   reps,
		DefaultDriver: &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{"command": agent, "idleTimeout": "30s"}},
		Environment:   map[string]any{"example": "quickstart", "goos": runtime.GOOS},
		Progress: func(u orchestrator.Update) {
			if u.Kind == orchestrator.RunFinished {
				fmt.Fprintf(w, "  [%d/%d] %s #%d: %s\n", u.Done, u.Total, u.CaseID, u.Repetition, verdictText(u.Verdict))
			}
		},
	})
	suite := cases(filepath.Join(src, "fixtures", "notes"))

	diags := o.Preflight(ctx, suite)
	if !orchestrator.Healthy(diags) {
		for _, d := range diags {
			if d.Status != orchestrator.StatusPass {
				fmt.Fprintln(w, d)
			}
		}
		return errors.New("preflight failed")
	}

	fmt.Fprintf(w, "Running %d cases x %d repetitions against echoagent...\n", len(suite), reps)
	res, err := o.RunSuite(ctx, suite)
	if err != nil && res == nil {
		return err
	}
	printTable(w, res)
	t := res.Summary.Totals
	fmt.Fprintf(w, "\n%d runs: %d passed, %d failed, %d ungraded (pass rate %.0f%%) in %s\n",
		t.Attempts, t.Passed, t.Failed, t.Ungraded, 100*t.PassRate, time.Since(start).Round(10*time.Millisecond))
	fmt.Fprintf(w, "%q fails on purpose: its assertion expects \"Hello there\" but the prompt asks for \"Hi there\".\n", failsOnPurpose)
	abs, _ := filepath.Abs(res.Dir)
	fmt.Fprintf(w, "Records: %s (suite.json, suite-summary.json; each run's directory is listed in suite.json)\n", abs)
	absRoot, _ := filepath.Abs(root)
	fmt.Fprintf(w, "Report:  go run ./cmd/lux report -html quickstart.html %s   (then open quickstart.html in a browser)\n", shellQuote(abs))
	fmt.Fprintf(w, "Browse:  go run ./cmd/lux view -serve -runs-root %s   (every run, on http://127.0.0.1:7878/)\n", shellQuote(absRoot))
	if err != nil {
		return err
	}
	return checkOutcomes(res)
}

// checkOutcomes reports an error unless every case did what it was meant
// to: all pass, except the one that fails on purpose.
func checkOutcomes(res *record.Suite) error {
	var bad []string
	for _, it := range res.Manifest.Items {
		passed := it.Passed != nil && *it.Passed
		if passed == (it.CaseID == failsOnPurpose) {
			bad = append(bad, fmt.Sprintf("%s #%d: %s (%s)", it.CaseID, it.Repetition, verdictText(it.Verdict()), it.Error))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("unexpected outcomes:\n  %s", strings.Join(bad, "\n  "))
	}
	return nil
}

func printTable(w io.Writer, res *record.Suite) {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tREP\tVERDICT\tSCORE\tEXIT\tDURATION\tTOKENS (agent)\tINTERRUPTS")
	for _, s := range res.Summary.Samples {
		score := "-"
		if s.Score != nil {
			score = fmt.Sprintf("%.0f%%", 100**s.Score)
		}
		tokens := "unavailable"
		if v, ok := s.Metrics["agent.total"]; ok {
			tokens = fmt.Sprintf("%.0f", v)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%.0f\n", s.CaseID, s.Repetition, verdictText(s.Verdict()), score,
			s.ExitReason, time.Duration(s.Metrics["durationMs"])*time.Millisecond, tokens, s.Metrics["interrupts"])
	}
	tw.Flush()
}

// verdictText is the run's verdict (record.RunVerdict's), in capitals.
func verdictText(v record.Verdict) string { return strings.ToUpper(string(v)) }

// shellQuote quotes path for a POSIX shell when it needs it.
func shellQuote(path string) string {
	if path != "" && strings.Trim(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@") == "" {
		return path
	}
	return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}
