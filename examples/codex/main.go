// Command codex runs the real Codex CLI through lux, end to end: three
// cases, each graded by assertions, one in the CLI's exec mode and two in
// app-server mode, where the CLI's question and approval requests are
// answered by the scripted answerer.
//
// By default every case gets its own scripted model server on 127.0.0.1
// (package modeltest) standing in for the OpenAI Responses API, so no API
// key is needed and nothing leaves the machine:
//
//	go run ./examples/codex
//
// With -api the same cases run against the real OpenAI API (see
// README.md). The CLI is found with -codex, else in $LUX_CLI_CACHE or
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
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/scripted"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/builtin"
	"github.com/luxeval/lux/driver/codex"
	"github.com/luxeval/lux/examples/internal/exrun"
	"github.com/luxeval/lux/modeltest"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// options are the command line's.
type options struct {
	runs  string // the runs root
	codex string // the CLI; empty means found (see exrun.FindCLI)
	api   bool   // the real OpenAI API instead of scripted servers
	model string
}

func main() {
	var o options
	flag.StringVar(&o.runs, "runs", record.DefaultRoot, "directory the run records go to")
	flag.StringVar(&o.codex, "codex", "", "the codex executable (default: from $LUX_CLI_CACHE, ~/.cache/lux-clis, or PATH)")
	flag.BoolVar(&o.api, "api", false, "use the real OpenAI API (needs OPENAI_API_KEY) instead of a scripted model server")
	flag.StringVar(&o.model, "model", codex.DefaultModel, "the model the CLI asks for")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "codex:", err)
		os.Exit(1)
	}
}

// example is one case and the script the model server follows for it.
type example struct {
	c      *lux.Case
	script modeltest.Script
}

// appServer is the part of a case's driver config that runs the CLI in
// app-server mode, asking for approval of anything not known to be safe.
var appServer = map[string]any{"mode": "app-server", "approvalPolicy": "untrusted"}

// patch is an apply_patch call adding one file.
func patch(path, content string) modeltest.ToolCall {
	return modeltest.ToolCall{Name: "apply_patch", Input: "*** Begin Patch\n*** Add File: " + path + "\n+" + content + "\n*** End Patch\n"}
}

// shell is an exec_command call; login false skips the user's shell
// start-up files.
func shell(cmd string) modeltest.ToolCall {
	return modeltest.ToolCall{Name: "exec_command", Input: map[string]any{"cmd": cmd, "login": false}}
}

// examples are the cases. The scripts play the model: each turn is one
// response, in order; the CLI runs the tools for real.
func examples() []example {
	return []example{
		{
			c: &lux.Case{
				ID:     "hello-shell",
				Prompt: "Create hello.txt containing `Hello, lux!`, then run `wc -c hello.txt` and tell me the byte count.",
				Driver: &lux.PluginRef{Name: codex.Name, Config: map[string]any{"mode": "exec"}},
				Assertions: []lux.AssertionSpec{
					assertion.RunSucceeded(),
					assertion.FileContains("hello.txt", "Hello, lux!"),
					assertion.ToolCalled(codex.ToolFileChange),
					assertion.ToolCalledWith(codex.ToolCommand, assertion.ArgsContains("wc -c hello.txt")),
				},
			},
			script: modeltest.Script{
				{
					Text:      "I'll create the file.",
					ToolCalls: []modeltest.ToolCall{patch("hello.txt", "Hello, lux!")},
					Usage:     modeltest.Usage{InputTokens: 1200, OutputTokens: 40},
				},
				{
					ToolCalls: []modeltest.ToolCall{shell("wc -c hello.txt")},
					Usage:     modeltest.Usage{InputTokens: 200, CacheReadTokens: 1200, OutputTokens: 30},
				},
				{Text: "hello.txt has 12 bytes.", Usage: modeltest.Usage{InputTokens: 100, CacheReadTokens: 1400, OutputTokens: 10}},
			},
		},
		{
			c: &lux.Case{
				ID:       "favorite-color",
				Prompt:   "Use your request_user_input tool to ask me whether I prefer red or blue, then write my answer (just the color) to color.txt.",
				Requires: []lux.Capability{lux.CanAsk},
				Driver:   &lux.PluginRef{Name: codex.Name, Config: appServer},
				Assertions: []lux.AssertionSpec{
					assertion.InterruptCount(assertion.Kind(lux.Ask), assertion.Min(1)),
					assertion.FileContains("color.txt", "Blue"),
				},
			},
			script: modeltest.Script{
				{
					ToolCalls: []modeltest.ToolCall{{Name: "request_user_input", Input: map[string]any{
						"questions": []map[string]any{{
							"id": "color", "header": "Color", "question": "Which color do you prefer, red or blue?",
							"options": []map[string]any{{"label": "Red", "description": "Red"}, {"label": "Blue", "description": "Blue"}},
						}},
					}}},
					Usage: modeltest.Usage{InputTokens: 1200, OutputTokens: 60},
				},
				{
					ToolCalls: []modeltest.ToolCall{patch("color.txt", "Blue")},
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
				Driver:   &lux.PluginRef{Name: codex.Name, Config: appServer},
				Assertions: []lux.AssertionSpec{
					assertion.InterruptCount(assertion.Kind(lux.Approve), assertion.Min(2)),
					assertion.FileContains("page.html", "offline"),
				},
			},
			script: modeltest.Script{
				{
					ToolCalls: []modeltest.ToolCall{shell("curl -sS https://example.com -o page.html")},
					Usage:     modeltest.Usage{InputTokens: 1200, OutputTokens: 40},
				},
				{
					Text:      "The download was refused, so I'll write the fallback.",
					ToolCalls: []modeltest.ToolCall{patch("page.html", "offline")},
					Usage:     modeltest.Usage{InputTokens: 150, CacheReadTokens: 1200, OutputTokens: 40},
				},
				{Text: "page.html says offline.", Usage: modeltest.Usage{InputTokens: 80, CacheReadTokens: 1350, OutputTokens: 10}},
			},
		},
	}
}

// answerer plays the user: it answers the color question, approves file
// changes and `wc`, and denies every other request.
func answerer() *lux.PluginRef {
	return &lux.PluginRef{Name: scripted.Name, Config: scripted.Config{Rules: []scripted.Rule{
		scripted.Reply(`(?i)red or blue|colou?r`, "Blue"),
		{Kind: lux.Approve, Action: lux.ActionEdit, Approve: new(true)},
		{Kind: lux.Approve, Action: lux.ActionCommand, Command: `^wc `, Approve: new(true)},
		scripted.Otherwise(scripted.Deny("", "Not allowed in this example.")),
		scripted.Otherwise(scripted.Reply("", "Use your best judgement.")),
	}}}
}

// driverConfig is the codex config every case shares; cases add their
// mode and, with scripted servers, the server's address.
func driverConfig(o options, cli string) map[string]any {
	cfg := map[string]any{"command": cli, "model": o.model}
	if o.api {
		cfg["provider"] = map[string]any{"baseURL": "https://api.openai.com/v1", "envKey": "OPENAI_API_KEY"}
	} else {
		cfg["inheritEnv"] = false
	}
	return cfg
}

// scriptedProvider is the case-level config that makes srv the CLI's
// model provider, without retries, and routes any other traffic to srv,
// which refuses it.
func scriptedProvider(srv *modeltest.Server) map[string]any {
	env := map[string]string{}
	for _, kv := range srv.ProxyEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return map[string]any{
		"provider": map[string]any{"baseURL": srv.OpenAIBaseURL(), "requestMaxRetries": 0, "streamMaxRetries": 0},
		"env":      env,
	}
}

func run(ctx context.Context, w io.Writer, o options) error {
	cli, err := exrun.FindCLI("codex", o.codex, codex.InstallHint)
	if err != nil {
		return err
	}
	if o.api && os.Getenv("OPENAI_API_KEY") == "" {
		return errors.New("-api needs OPENAI_API_KEY in the environment")
	}
	orch := orchestrator.New(builtin.Registry(), orchestrator.Options{
		RunsRoot:        o.runs,
		DefaultDriver:   &lux.PluginRef{Name: codex.Name, Config: driverConfig(o, cli)},
		DefaultAnswerer: answerer(),
		Environment:     map[string]any{"example": "codex", "api": o.api},
		Progress:        exrun.Progress(w),
	})

	var cases []*lux.Case
	var servers []*modeltest.Server
	defer func() {
		for _, s := range servers {
			s.Close()
		}
	}()
	for _, ex := range examples() {
		c := ex.c
		if !o.api {
			// Each case gets its own scripted model, merged into the
			// case's driver config.
			srv, err := modeltest.NewServer(ex.script, modeltest.WithLogf(func(string, ...any) {}))
			if err != nil {
				return err
			}
			servers = append(servers, srv)
			cfg := scriptedProvider(srv)
			for k, v := range c.Driver.Config.(map[string]any) {
				cfg[k] = v
			}
			c.Driver = &lux.PluginRef{Name: codex.Name, Config: cfg}
		}
		cases = append(cases, c)
	}
	where := "scripted model servers on 127.0.0.1"
	if o.api {
		where = "the OpenAI API"
	}
	return exrun.Suite(ctx, w, orch, cases, fmt.Sprintf("Running %d cases with %s against %s...", len(cases), cli, where))
}
