// Command rubric runs one case whose README is graded by a rubric judge:
// the real Claude Code CLI writes the README, and the real Claude Code CLI,
// used as a plain model, judges it against the criterion.
//
// By default both talk to scripted model servers on 127.0.0.1 (package
// modeltest), so no API key is needed and nothing leaves the machine:
//
//	go run ./examples/rubric
//
// With -api both use the real Anthropic API: set ANTHROPIC_API_KEY (or log
// in with claude and pass -user-config for the judge), then
//
//	go run ./examples/rubric -api
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/assertion/rubric"
	"github.com/luxeval/lux/builtin"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/examples/internal/exrun"
	"github.com/luxeval/lux/harness"
	"github.com/luxeval/lux/internal/clis"
	"github.com/luxeval/lux/modeltest"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

func main() {
	runs := flag.String("runs", record.DefaultRoot, "directory the run records go to")
	api := flag.Bool("api", false, "use the real Anthropic API (ANTHROPIC_API_KEY) instead of scripted model servers")
	userConfig := flag.Bool("user-config", false, "with -api: the judge uses your claude login instead of an API key")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, *runs, *api, *userConfig); err != nil {
		fmt.Fprintln(os.Stderr, "rubric:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer, runs string, api, userConfig bool) error {
	claude := clis.Lookup("claude")
	if claude == "" {
		return fmt.Errorf("the claude CLI is not installed: run .ci/install-clis.sh, or npm install -g @anthropic-ai/claude-code")
	}
	driverCfg := map[string]any{"command": claude, "permissionMode": "acceptEdits"}
	judge := harness.Config{Command: claude, UserConfig: userConfig}
	if !api {
		agent, err := modeltest.NewServer(modeltest.Script{
			{ToolCalls: []modeltest.ToolCall{{Name: "Write", Input: map[string]any{
				"file_path": "README.md", "content": "# greet\n\nRun the tests with `go test ./...`.\n"}}}},
			{Text: "I wrote README.md."},
		})
		if err != nil {
			return err
		}
		defer agent.Close()
		model, err := modeltest.NewServer(modeltest.Script{
			{Text: `{"score": 0.9, "comment": "The README names the one command that runs the tests."}`},
		}, modeltest.WithOneShotTurns(), modeltest.WithSideCalls(nil))
		if err != nil {
			return err
		}
		defer model.Close()
		driverCfg["baseUrl"], driverCfg["inheritEnv"] = agent.URL(), false
		driverCfg["env"] = map[string]string{"ANTHROPIC_API_KEY": "sk-modeltest"}
		judge.Env = map[string]string{}
		for _, kv := range model.ClaudeCodeEnv() {
			k, v, _ := strings.Cut(kv, "=")
			judge.Env[k] = v
		}
	}
	o := orchestrator.New(builtin.Registry(), orchestrator.Options{RunsRoot: runs, Harness: judge, Progress: exrun.Progress(w)})
	c := &lux.Case{
		ID:     "readme-clear",
		Prompt: "Write a short README.md for this Go module that says how to run its tests.",
		Driver: &lux.PluginRef{Name: claudecode.Name, Config: driverCfg},
		Assertions: []lux.AssertionSpec{
			assertion.FileExists("README.md"),
			{Type: rubric.Type, ID: "says-how-to-test", Config: map[string]any{
				"criteria": "The README tells a newcomer, in one command, how to run the tests.",
				"evidence": map[string]any{"artifacts": []string{"README.md"}},
			}},
		},
	}
	res, err := o.Run(ctx, c)
	if err != nil {
		return err
	}
	for _, a := range res.Grading.Assertions {
		fmt.Fprintf(w, "%-18s passed=%-5v score=%.2f %s%s\n", a.ID, a.Passed, a.Score, a.Comment, a.Error)
	}
	u := res.Metadata.Usage
	fmt.Fprintf(w, "verdict: %s; judge: %d calls, %d tokens; record: %s\n", res.Verdict(), u.Judge.Calls, u.Judge.Total(), res.Dir)
	if res.Verdict() != "pass" {
		return fmt.Errorf("the case did not pass")
	}
	return nil
}
