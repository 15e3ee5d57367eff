// Command claudecode runs the real Claude Code CLI through lux, end to end:
// three cases, each graded by assertions, with the CLI's questions and
// permission requests answered by the scripted answerer.
//
// By default every case gets its own scripted model server on 127.0.0.1
// (package modeltest) standing in for the Anthropic API, so no API key is
// needed and nothing leaves the machine:
//
//	go run ./examples/claudecode
//
// With -api the same cases run against the real Anthropic API (see
// README.md). The CLI is found with -claude, else in $LUX_CLI_CACHE or
// ~/.cache/lux-clis (where .ci/install-clis.sh puts it), else on PATH.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/scripted"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/builtin"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/examples/internal/exrun"
	"github.com/luxeval/lux/modeltest"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// options are the command line's.
type options struct {
	runs   string // the runs root
	claude string // the CLI; empty means found (see exrun.FindCLI)
	api    bool   // the real Anthropic API instead of scripted servers
	model  string
}

func main() {
	var o options
	flag.StringVar(&o.runs, "runs", record.DefaultRoot, "directory the run records go to")
	flag.StringVar(&o.claude, "claude", "", "the claude executable (default: from $LUX_CLI_CACHE, ~/.cache/lux-clis, or PATH)")
	flag.BoolVar(&o.api, "api", false, "use the real Anthropic API (needs ANTHROPIC_API_KEY) instead of a scripted model server")
	flag.StringVar(&o.model, "model", "claude-haiku-4-5", "the model the CLI asks for")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "claudecode:", err)
		os.Exit(1)
	}
}

// example is one case and the script the model server follows for it.
type example struct {
	c      *lux.Case
	script modeltest.Script
}

// examples are the cases. The scripts play the model: each turn is one
// response, in order.
func examples() []example {
	return []example{
		{
			c: &lux.Case{
				ID:     "hello-shell",
				Prompt: "Create hello.txt containing exactly `Hello, lux!` (no newline), then run `wc -c hello.txt` and tell me the byte count.",
				Assertions: []lux.AssertionSpec{
					assertion.RunSucceeded(),
					assertion.FileContains("hello.txt", "Hello, lux!"),
					assertion.ToolCalled("Write"),
					assertion.ToolCalled("Bash"),
				},
			},
			script: modeltest.Script{
				{
					Text:      "I'll create the file.",
					ToolCalls: []modeltest.ToolCall{{Name: "Write", Input: map[string]any{"file_path": "hello.txt", "content": "Hello, lux!"}}},
					Usage:     modeltest.Usage{InputTokens: 1200, OutputTokens: 40},
				},
				{
					ToolCalls: []modeltest.ToolCall{{Name: "Bash", Input: map[string]any{"command": "wc -c hello.txt", "description": "Count the bytes"}}},
					Usage:     modeltest.Usage{InputTokens: 200, CacheReadTokens: 1200, OutputTokens: 30},
				},
				{Text: "hello.txt has 11 bytes.", Usage: modeltest.Usage{InputTokens: 100, CacheReadTokens: 1400, OutputTokens: 10}},
			},
		},
		{
			c: &lux.Case{
				ID:       "favorite-color",
				Prompt:   "Use your AskUserQuestion tool to ask me whether I prefer red or blue, then write my answer (just the color) to color.txt.",
				Requires: []lux.Capability{lux.CanAsk},
				Assertions: []lux.AssertionSpec{
					assertion.InterruptCount(assertion.Kind(lux.Ask), assertion.Min(1)),
					assertion.FileContains("color.txt", "Blue"),
				},
			},
			script: modeltest.Script{
				{
					ToolCalls: []modeltest.ToolCall{{Name: "AskUserQuestion", Input: map[string]any{
						"questions": []map[string]any{{
							"question": "Which color do you prefer?", "header": "Color", "multiSelect": false,
							"options": []map[string]any{{"label": "Red", "description": "Red"}, {"label": "Blue", "description": "Blue"}},
						}},
					}}},
					Usage: modeltest.Usage{InputTokens: 1200, OutputTokens: 60},
				},
				{
					ToolCalls: []modeltest.ToolCall{{Name: "Write", Input: map[string]any{"file_path": "color.txt", "content": "Blue\n"}}},
					Usage:     modeltest.Usage{InputTokens: 150, CacheReadTokens: 1200, OutputTokens: 30},
				},
				{Text: "I wrote Blue to color.txt.", Usage: modeltest.Usage{InputTokens: 80, CacheReadTokens: 1350, OutputTokens: 10}},
			},
		},
		{
			c: &lux.Case{
				ID:       "no-network",
				Prompt:   "Download https://example.com into page.html with curl; if you cannot, write `offline` to page.html instead.",
				Requires: []lux.Capability{lux.CanApprove},
				Assertions: []lux.AssertionSpec{
					assertion.InterruptCount(assertion.Kind(lux.Approve), assertion.Min(1)),
					assertion.FileContains("page.html", "offline"),
				},
			},
			script: modeltest.Script{
				{
					ToolCalls: []modeltest.ToolCall{{Name: "Bash", Input: map[string]any{"command": "curl -sS https://example.com -o page.html", "description": "Download the page"}}},
					Usage:     modeltest.Usage{InputTokens: 1200, OutputTokens: 40},
				},
				{
					Text:      "The download was refused, so I'll write the fallback.",
					ToolCalls: []modeltest.ToolCall{{Name: "Write", Input: map[string]any{"file_path": "page.html", "content": "offline\n"}}},
					Usage:     modeltest.Usage{InputTokens: 150, CacheReadTokens: 1200, OutputTokens: 40},
				},
				{Text: "page.html says offline.", Usage: modeltest.Usage{InputTokens: 80, CacheReadTokens: 1350, OutputTokens: 10}},
			},
		},
	}
}

// answerer plays the user: it answers the color question, approves file
// writes and `wc`, and denies every other request.
func answerer() *lux.PluginRef {
	return &lux.PluginRef{Name: scripted.Name, Config: scripted.Config{Rules: []scripted.Rule{
		scripted.Reply(`(?i)red or blue|color`, "Blue"),
		{Kind: lux.Approve, Action: lux.ActionEdit, Approve: new(true)},
		{Kind: lux.Approve, Action: lux.ActionCommand, Command: `^wc `, Approve: new(true)},
		scripted.Otherwise(scripted.Deny("", "Not allowed in this example.")),
		scripted.Otherwise(scripted.Reply("", "Use your best judgement.")),
	}}}
}

// driverConfig is the claude-code config every case shares. The CLI's
// default permission mode sends each tool call its rules do not settle to
// the answerer.
func driverConfig(o options, claude string) map[string]any {
	cfg := map[string]any{"command": claude, "model": o.model, "permissionMode": "default"}
	if o.api {
		cfg["apiKeyEnv"] = "ANTHROPIC_API_KEY"
	} else {
		cfg["inheritEnv"] = false
		cfg["env"] = map[string]string{"ANTHROPIC_API_KEY": "sk-scripted"}
	}
	return cfg
}

func run(ctx context.Context, w io.Writer, o options) error {
	claude, err := exrun.FindCLI("claude", o.claude, claudecode.InstallHint)
	if err != nil {
		return err
	}
	if o.api && os.Getenv("ANTHROPIC_API_KEY") == "" {
		return errors.New("-api needs ANTHROPIC_API_KEY in the environment")
	}
	orch := orchestrator.New(builtin.Registry(), orchestrator.Options{
		RunsRoot:        o.runs,
		DefaultDriver:   &lux.PluginRef{Name: claudecode.Name, Config: driverConfig(o, claude)},
		DefaultAnswerer: answerer(),
		Environment:     map[string]any{"example": "claudecode", "api": o.api},
		Progress:        exrun.Progress(w),
	})

	var cases []*lux.Case
	for _, ex := range examples() {
		c := ex.c
		if !o.api {
			// Each case gets its own scripted model: its base URL is
			// merged into the shared driver config.
			srv, err := modeltest.NewServer(ex.script, modeltest.WithLogf(func(string, ...any) {}))
			if err != nil {
				return err
			}
			defer srv.Close()
			c.Driver = &lux.PluginRef{Name: claudecode.Name, Config: map[string]any{"baseUrl": srv.URL()}}
		}
		cases = append(cases, c)
	}
	where := "scripted model servers on 127.0.0.1"
	if o.api {
		where = "the Anthropic API"
	}
	return exrun.Suite(ctx, w, orch, cases, fmt.Sprintf("Running %d cases with %s against %s...", len(cases), claude, where))
}
