// Command optimize searches for better instructions for echoagent, the
// example agent, and promotes only what holds up on held-out cases, with
// no model and no API key:
//
//	go run ./examples/optimize
//
// The subject is project/subject/AGENTS.md, which tells the agent to
// indent with spaces; every case checks the house style. The train cases
// only check that STYLE.md mentions "tabs"; the validation and test cases
// check the whole rule, "indent with tabs". The optimizer is the built-in
// reflective one, its model scripted here (a Go value in place of claude
// -p): its first reply is not JSON (a failed call, recorded with no
// usage), its second writes just "tabs" — a perfect train score that only
// fits the train cases — and its third states the whole rule. Both end on
// the train frontier; the held-out experiment (the campaign's paired gates
// on validation and test) promotes the fix and rejects the overfit. The
// example prints the lineage and the decision; apply the champion with
// `go run ./cmd/lux apply LEDGER`.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/examples/internal/exsetup"
	"github.com/luxeval/lux/experiment"
	"github.com/luxeval/lux/harness"
	"github.com/luxeval/lux/optimize"
	"github.com/luxeval/lux/record"
)

func main() {
	root := flag.String("runs", record.DefaultRoot, "directory the runs and the ledgers go to")
	quiet := flag.Bool("q", false, "no progress lines")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, *root, *quiet); err != nil {
		fmt.Fprintln(os.Stderr, "optimize:", err)
		os.Exit(1)
	}
}

// scriptedModel stands in for claude -p: it answers each call with the
// next of its replies.
type scriptedModel struct {
	mu      sync.Mutex
	replies []string
}

func (m *scriptedModel) Name() string { return "scripted:example" }

func (m *scriptedModel) Complete(_ context.Context, _ harness.Request) (harness.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.replies) == 0 {
		return harness.Response{}, fmt.Errorf("no more replies")
	}
	text := m.replies[0]
	m.replies = m.replies[1:]
	return harness.Response{Text: text, Usage: lux.TokenUsage{Input: 1200, Output: 60}}, nil
}

func proposal(rationale, agents string) string {
	b, _ := json.Marshal(map[string]any{"proposals": []any{map[string]any{"rationale": rationale, "updates": map[string]string{"AGENTS.md": agents}}}})
	return string(b)
}

func run(ctx context.Context, w io.Writer, root string, quiet bool) error {
	src := exsetup.SourceDir(filepath.Join("examples", "optimize"))
	agent, err := exsetup.BuildEchoAgent(ctx, filepath.Join(root, ".bin"))
	if err != nil {
		return err
	}
	reg := lux.NewRegistry()
	if err := reg.RegisterDriver(subprocess.Plugin()); err != nil {
		return err
	}
	if err := assertion.Register(reg); err != nil {
		return err
	}
	c, err := experiment.Load(filepath.Join(src, "project", "house-style.optimize.json"))
	if err != nil {
		return err
	}
	p := c.Profiles["echoagent"]
	p.Driver = &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{
		"command": agent, "env": map[string]string{"ECHOAGENT_INSTRUCTIONS": "{{lux.subjectRoot}}/AGENTS.md"},
	}}
	c.Profiles["echoagent"] = p

	model := &scriptedModel{replies: []string{
		"The agent should use tabs.", // not JSON: a failed call
		proposal("the failed assertions say STYLE.md must mention tabs", "write STYLE.md containing \"tabs\".\n"),
		"```json\n" + proposal("state the house style as a rule: indent with tabs", "write STYLE.md containing \"indent with tabs\".\n") + "\n```",
	}}
	spec := c.Optimizer
	opts := optimize.Options{RunsRoot: root, Concurrency: 2, Patience: spec.Patience, TopK: spec.PromotionTopK,
		Budget: optimize.Budget{MaxProposalCalls: spec.MaxProposalCalls}}
	if !quiet {
		opts.Progress = func(s string) { fmt.Fprintln(os.Stderr, s) }
	}
	res, err := optimize.Search(ctx, reg, c, &optimize.Reflective{Model: model}, opts)
	if err != nil {
		return err
	}
	entries, err := optimize.ReadJournal(res.Dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "search stopped: %s\n", res.StopReason)
	fmt.Fprintf(w, "proposals: %d calls, %d tokens\n", res.Spent.ProposalCalls, res.Spent.ProposalTokens)
	fmt.Fprintln(w, "lineage:")
	for _, l := range optimize.LineageLines(entries) {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintf(w, "held-out decision: %s\n", res.Final.Sentence())
	for _, v := range res.Final.Verdicts() {
		fmt.Fprintln(w, "  "+v)
	}
	fmt.Fprintf(w, "report: go run ./cmd/lux report '%s'\n", res.Final.Dir)
	fmt.Fprintf(w, "apply:  go run ./cmd/lux apply '%s'\n", res.Final.Dir)
	return nil
}
