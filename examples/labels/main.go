// Command labels shows how people's labels measure a grader, with no
// model and no API key:
//
//	go run ./examples/labels
//
// It runs six cases against echoagent (the example agent that follows its
// prompt literally): each asks for a summary.md, and half of the answers
// are placeholders ("TODO") that a reviewer would fail. Every case has two
// assertions: exists (summary.md exists: lenient) and has-summary
// (summary.md starts with "Summary:" and a sentence). The reviewer's
// verdicts are then written to a label dataset (labels.json, beside the
// runs) with labels.ForRun and labels.Upsert, as lux annotate does, and
// labels.Agree measures each assertion against them: exists passes every
// placeholder (false positives, kappa 0), has-summary agrees with the
// reviewer. The same report on the command line:
//
//	go run ./cmd/lux grade -labels .lux-runs/labels.json
//
// The labels in this example are written by the program (source
// "synthetic"); a person labels a run with lux annotate -interactive.
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
	"text/tabwriter"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/examples/internal/exsetup"
	"github.com/luxeval/lux/labels"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/stats"
)

func main() {
	root := flag.String("runs", record.DefaultRoot, "directory the run records and labels.json go to")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if _, err := example(ctx, os.Stdout, *root); err != nil {
		fmt.Fprintln(os.Stderr, "labels:", err)
		os.Exit(1)
	}
}

// summaries are what the agent is asked to write, and the reviewer's
// verdict on each.
var summaries = []struct {
	id, text string
	good     bool
}{
	{"parser", "Summary: the parser now accepts tabs.", true},
	{"cache", "TODO", false},
	{"retry", "Summary: failed uploads are retried three times.", true},
	{"auth", "summary tbd", false},
	{"docs", "Summary: the README explains the flags.", true},
	{"metrics", "TODO: write this", false},
}

func cases() []*lux.Case {
	var out []*lux.Case
	for _, s := range summaries {
		out = append(out, &lux.Case{
			ID:     "summary-" + s.id,
			Prompt: fmt.Sprintf("write summary.md containing %q", s.text),
			Assertions: []lux.AssertionSpec{
				{Type: "file-exists", ID: "exists", Config: map[string]any{"path": "summary.md"}},
				{Type: "file-matches", ID: "has-summary", Config: map[string]any{"path": "summary.md", "pattern": `^Summary: [a-z].*\.`}},
			},
		})
	}
	return out
}

// example runs the cases, labels their runs and prints the agreement; it
// returns the report.
func example(ctx context.Context, w io.Writer, root string) (labels.Report, error) {
	agent, err := exsetup.BuildEchoAgent(ctx, filepath.Join(root, ".bin"))
	if err != nil {
		return labels.Report{}, err
	}
	reg := lux.NewRegistry()
	if err := errors.Join(reg.RegisterDriver(subprocess.Plugin()), assertion.Register(reg)); err != nil {
		return labels.Report{}, err
	}
	o := orchestrator.New(reg, orchestrator.Options{
		RunsRoot: root, Concurrency: 2,
		DefaultDriver: &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{"command": agent, "idleTimeout": "30s"}},
	})
	fmt.Fprintf(w, "Running %d cases against echoagent...\n", len(summaries))
	res, err := o.RunSuite(ctx, cases())
	if err != nil {
		return labels.Report{}, err
	}

	dataset := filepath.Join(root, "labels.json")
	good := map[string]bool{}
	for _, s := range summaries {
		good["summary-"+s.id] = s.good
	}
	var items []labels.Graded
	for _, it := range res.Manifest.Items {
		dir := filepath.Join(res.Dir, filepath.FromSlash(it.RunDir))
		l, err := labels.ForRun(dataset, dir, "example-reviewer")
		if err != nil {
			return labels.Report{}, err
		}
		pass := good[it.CaseID]
		l.Source, l.LabeledAt, l.Tags = labels.SourceSynthetic, time.Now().UTC(), []string{"train"}
		l.Expected = labels.Expected{Passed: &pass, Assertions: map[string]labels.AssertionLabel{"has-summary": {Passed: pass}, "exists": {Passed: pass}}}
		if !pass {
			l.Feedback = "a placeholder is not a summary"
		}
		if _, err := labels.Upsert(dataset, l); err != nil {
			return labels.Report{}, err
		}
		_, g, err := record.ReadMetadata(dir)
		if err != nil {
			return labels.Report{}, err
		}
		items = append(items, labels.Graded{Label: l, Grading: g})
	}
	rep := labels.Agree(items, stats.Config{Seed: 1})

	fmt.Fprintf(w, "\nLabels: %s (%d runs labelled)\n\n", dataset, len(items))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SUBJECT\tTP\tFP\tFN\tTN\tAGREEMENT\tFALSE POSITIVES\tKAPPA")
	for _, t := range append([]labels.Table{rep.Case}, rep.Assertions...) {
		kappa := t.Kappa.Undefined
		if t.Kappa.Estimate != nil {
			kappa = fmt.Sprintf("%.2f [%.2f, %.2f]", *t.Kappa.Estimate, *t.Kappa.Lower, *t.Kappa.Upper)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n", t.Subject, t.TP, t.FP, t.FN, t.TN, pct(t.Agreement), pct(t.FalsePositiveRate), kappa)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nexists passes every placeholder the reviewer failed; has-summary agrees with the reviewer.")
	fmt.Fprintln(w, "(6 labels are far too few for a decision: a bootstrap over so few units under-covers, as lux grade -labels warns.)")
	fmt.Fprintf(w, "Try:  go run ./cmd/lux grade -labels %s\n", dataset)
	fmt.Fprintf(w, "      go run ./cmd/lux annotate -interactive -out %s RUN_DIR\n", dataset)
	return rep, nil
}

func pct(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100**v)
}
