// Command judge tunes a rubric judge against people's labels with a
// grader experiment, with no API key:
//
//	go run ./examples/judge
//
// It records six runs of echoagent (the example agent that follows its
// prompt literally), each asked for a summary.md; half of the summaries
// are placeholders ("TODO") that a reviewer fails. Every case has a rubric
// assertion, summary-quality, whose judge is the real Claude Code CLI used
// as a plain model, talking to a scripted model server on 127.0.0.1
// (package modeltest) that answers from the criterion it is sent: a
// criterion that says placeholders fail is applied strictly, any other
// passes every summary.md. The reviewer's verdicts go to a label dataset
// (labels.json) with labels.ForRun and labels.Upsert, as lux annotate
// does. Then a grader experiment (judge.experiment.json) regrades the
// labelled, frozen runs with two rubrics for summary-quality — the one the
// cases have (lenient) and a stricter variant — and gates them on false
// positives and agreement: the lenient rubric is rejected, the strict one
// promoted and written to rubrics/summary.md (what lux apply does).
//
// The same experiment on the command line, from the printed directory:
//
//	go run ./cmd/lux experiment judge.experiment.json
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
	"strings"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion/rubric"
	"github.com/luxeval/lux/builtin"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/examples/internal/exsetup"
	"github.com/luxeval/lux/experiment"
	"github.com/luxeval/lux/harness"
	"github.com/luxeval/lux/internal/clis"
	"github.com/luxeval/lux/labels"
	"github.com/luxeval/lux/modeltest"
	"github.com/luxeval/lux/orchestrator"
)

func main() {
	dir := flag.String("dir", "", "directory the runs, labels, rubrics and the experiment go to (default: a new temporary directory)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *dir == "" {
		d, err := os.MkdirTemp("", "lux-judge-example-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "judge:", err)
			os.Exit(1)
		}
		*dir = d
	}
	if _, err := example(ctx, os.Stdout, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "judge:", err)
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

// The rubrics: the cases' own (lenient), and the stricter variant.
const (
	lenientRubric = "summary.md exists and holds some text.\n"
	strictRubric  = "summary.md starts with \"Summary:\" and one sentence on what changed; a placeholder such as TODO or tbd fails.\n"
)

// judgeTurn is the scripted model's answer to a judge call: turn 0
// passes, turn 1 fails. A criterion that names placeholders passes only a
// summary.md that starts with "Summary:"; any other passes everything.
func judgeTurn(r *modeltest.Request) int {
	text := r.UserText()
	if strings.Contains(text, "placeholder") && !strings.Contains(text, "--- summary.md ---\nSummary:") {
		return 1
	}
	return 0
}

// campaign is the grader experiment: the subject is the rubric file; a
// rubric may pass none of the labelled failures and must agree with at
// least 80 % of the reviewer's verdicts.
const campaign = `{
  "id": "summary-judge",
  "subject": {"root": "rubrics", "mutable": ["summary.md"]},
  "grader": {"labels": "labels.json", "rubrics": [{"assertion": "summary-quality", "file": "summary.md"}]},
  "splits": {"validation": {"tags": ["validation"]}},
  "variants": [{"id": "strict", "files": {"summary.md": %q}}],
  "objectives": {"constraints": [
    {"metric": "judge.falsePositiveRate", "max": 0},
    {"metric": "judge.agreementRate", "min": 0.8}
  ]},
  "budget": {"maxJudgeCalls": 40}
}
`

// example records and labels the runs, runs the grader experiment and
// prints its decision; it returns the experiment's result.
func example(ctx context.Context, w io.Writer, dir string) (*experiment.Result, error) {
	claude := clis.Lookup("claude")
	if claude == "" {
		return nil, errors.New("the claude CLI is not installed: run .ci/install-clis.sh, or npm install -g @anthropic-ai/claude-code")
	}
	agent, err := exsetup.BuildEchoAgent(ctx, filepath.Join(dir, ".bin"))
	if err != nil {
		return nil, err
	}
	model, err := modeltest.NewServer(modeltest.Script{
		{Text: `{"score": 0.9, "comment": "The summary meets the criterion."}`},
		{Text: `{"score": 0.1, "comment": "A placeholder, not a summary."}`},
	}, modeltest.WithTurnOf(judgeTurn), modeltest.WithSideCalls(nil))
	if err != nil {
		return nil, err
	}
	defer model.Close()
	judge := harness.Config{Command: claude, Env: map[string]string{}}
	for _, kv := range model.ClaudeCodeEnv() {
		k, v, _ := strings.Cut(kv, "=")
		judge.Env[k] = v
	}

	// 1. The runs, graded by the cases' own (lenient) rubric.
	runs := filepath.Join(dir, "runs")
	o := orchestrator.New(builtin.Registry(), orchestrator.Options{
		RunsRoot: runs, Concurrency: 3, Harness: judge,
		DefaultDriver: &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{"command": agent, "idleTimeout": "30s"}},
	})
	var cases []*lux.Case
	for _, s := range summaries {
		cases = append(cases, &lux.Case{
			ID:     "summary-" + s.id,
			Prompt: fmt.Sprintf("write summary.md containing %q", s.text),
			Assertions: []lux.AssertionSpec{{Type: rubric.Type, ID: "summary-quality", Config: map[string]any{
				"criteria": strings.TrimSpace(lenientRubric), "evidence": map[string]any{"artifacts": []string{"summary.md"}},
			}}},
		})
	}
	fmt.Fprintf(w, "Recording %d runs of echoagent in %s...\n", len(cases), runs)
	res, err := o.RunSuite(ctx, cases)
	if err != nil {
		return nil, err
	}

	// 2. The reviewer's labels.
	dataset := filepath.Join(dir, "labels.json")
	good := map[string]bool{}
	for _, s := range summaries {
		good["summary-"+s.id] = s.good
	}
	for _, it := range res.Manifest.Items {
		l, err := labels.ForRun(dataset, filepath.Join(res.Dir, filepath.FromSlash(it.RunDir)), "example-reviewer")
		if err != nil {
			return nil, err
		}
		pass := good[it.CaseID]
		l.Source, l.LabeledAt, l.Tags = labels.SourceSynthetic, time.Now().UTC(), []string{"validation"}
		l.Expected = labels.Expected{Passed: &pass}
		if _, err := labels.Upsert(dataset, l); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(w, "Labelled %d runs in %s\n", len(res.Manifest.Items), dataset)

	// 3. The grader experiment over the frozen, labelled runs.
	if err := os.MkdirAll(filepath.Join(dir, "rubrics"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "rubrics", "summary.md"), []byte(lenientRubric), 0o644); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "judge.experiment.json")
	if err := os.WriteFile(path, fmt.Appendf(nil, campaign, strictRubric), 0o644); err != nil {
		return nil, err
	}
	c, err := experiment.Load(path)
	if err != nil {
		return nil, err
	}
	c.Grader.Judge = judge // the scripted server's address, which changes every run
	fmt.Fprintf(w, "Running the grader experiment %s...\n\n", path)
	out, err := experiment.Run(ctx, builtin.Registry(), c, experiment.Options{RunsRoot: runs, Concurrency: 3})
	if err != nil {
		return out, err
	}
	fmt.Fprintln(w, out.Sentence())
	for _, g := range out.Decision.Gates {
		fmt.Fprintf(w, "  %s: %s\n", g.Candidate, g.Text()) // the text ends with the gate's result
	}
	fmt.Fprintln(w)
	for _, l := range experiment.AgreementLines(out.Agreement) {
		fmt.Fprintln(w, l)
	}
	applied, err := experiment.Apply(ctx, out.Dir, "")
	if err != nil {
		return out, err
	}
	fmt.Fprintf(w, "\nApplied %s: wrote %s in %s\n", applied.Candidate, strings.Join(applied.Files, ", "), applied.SubjectRoot)
	fmt.Fprintf(w, "Report: go run ./cmd/lux report '%s'\n", out.Dir)
	return out, nil
}
