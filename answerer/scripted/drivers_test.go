package scripted_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/scripted"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/driver/codex"
	"github.com/luxeval/lux/internal/clitest"
	"github.com/luxeval/lux/modeltest"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// oneConfig is one answerer config meant for every driver: questions
// answered one by one by their text, commands approved or denied by what
// they run.
var oneConfig = scripted.Config{Rules: []scripted.Rule{
	{Match: "(?i)which colou?r", Answer: "Blue"},
	{Match: "(?i)which size", Answer: "Large"},
	{Kind: lux.Approve, Action: lux.ActionCommand, Command: `^rm `, Approve: new(false), Reason: "never delete data"},
	{Kind: lux.Approve, Action: lux.ActionCommand, Command: `^echo `, Approve: new(true)},
}}

// The same answerer config answers Claude Code's and Codex's two-question
// asks question by question, and approves and denies their commands by
// what they run: the interrupts have one shape whichever CLI asks.
func TestOneConfigAnswersEveryDriver(t *testing.T) {
	type script struct {
		driver   func(t *testing.T, srv *modeltest.Server) *lux.PluginRef
		ask      modeltest.ToolCall
		shell    func(cmd string) modeltest.ToolCall
		askTool  string
		denyTool string
		denial   string // what the model hears of the denial
	}
	questions := []map[string]any{
		{"question": "Which colour should the banner be?", "header": "Colour", "multiSelect": false,
			"options": []any{map[string]any{"label": "Blue", "description": "calm"}, map[string]any{"label": "Red", "description": "loud"}}},
		{"question": "Which size should it be?", "header": "Size", "multiSelect": false,
			"options": []any{map[string]any{"label": "Large", "description": "big"}, map[string]any{"label": "Small", "description": "small"}}},
	}
	codexQuestions := []any{}
	for i, q := range questions {
		codexQuestions = append(codexQuestions, map[string]any{"id": []string{"colour", "size"}[i], "header": q["header"], "question": q["question"], "options": q["options"]})
	}
	claudeQuestions := []any{questions[0], questions[1]}
	drivers := map[string]script{
		"claude-code": {
			driver: func(t *testing.T, srv *modeltest.Server) *lux.PluginRef {
				return &lux.PluginRef{Name: claudecode.Name, Config: map[string]any{
					"command": clitest.Find(t, "claude"), "baseUrl": srv.URL(), "inheritEnv": false, "permissionMode": "default",
					"env": map[string]string{"ANTHROPIC_API_KEY": "sk-test"},
				}}
			},
			ask: modeltest.ToolCall{Name: "AskUserQuestion", Input: map[string]any{"questions": claudeQuestions}},
			shell: func(cmd string) modeltest.ToolCall {
				return modeltest.ToolCall{Name: "Bash", Input: map[string]any{"command": cmd, "description": "run"}}
			},
			askTool: "AskUserQuestion", denyTool: "Bash", denial: "never delete data",
		},
		"codex": {
			driver: func(t *testing.T, srv *modeltest.Server) *lux.PluginRef {
				env := map[string]string{}
				for _, kv := range srv.ProxyEnv() {
					k, v, _ := strings.Cut(kv, "=")
					env[k] = v
				}
				return &lux.PluginRef{Name: "codex", Config: map[string]any{
					"command": clitest.Find(t, "codex"), "model": "gpt-5.5", "mode": "app-server", "approvalPolicy": "untrusted",
					"provider":   map[string]any{"baseURL": srv.OpenAIBaseURL(), "requestMaxRetries": 0, "streamMaxRetries": 0},
					"inheritEnv": false, "env": env,
				}}
			},
			ask: modeltest.ToolCall{Name: "request_user_input", Input: map[string]any{"questions": codexQuestions}},
			shell: func(cmd string) modeltest.ToolCall {
				return modeltest.ToolCall{Name: "exec_command", Input: map[string]any{"cmd": cmd, "login": false}}
			},
			askTool: "request_user_input", denyTool: "exec_command",
			// Codex's approvals carry no message (lux.Approval.NoDenyReason).
			denial: "rejected by user",
		},
	}
	for name, d := range drivers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.Start(t, modeltest.Script{
				{ToolCalls: []modeltest.ToolCall{d.ask}},
				{ToolCalls: []modeltest.ToolCall{d.shell("echo ok > ok.txt")}},
				{ToolCalls: []modeltest.ToolCall{d.shell("rm -rf data")}},
				{Text: "Done."},
			})
			reg := lux.NewRegistry()
			require.NoError(t, errors.Join(reg.RegisterDriver(claudecode.Plugin()), reg.RegisterDriver(codex.Plugin()),
				reg.RegisterAnswerer(scripted.Plugin()), assertion.Register(reg)))
			o := orchestrator.New(reg, orchestrator.Options{RunsRoot: t.TempDir()})
			ctx, cancel := ctxtest.Safety(t)
			defer cancel()
			res, err := o.Run(ctx, &lux.Case{
				ID: "one-config-" + name, Prompt: "Make a banner.",
				Driver:     d.driver(t, srv),
				Answerer:   &lux.PluginRef{Name: scripted.Name, Config: oneConfig},
				Assertions: []lux.AssertionSpec{assertion.RunSucceeded(), assertion.FileContains("ok.txt", "ok")},
			})
			require.NoError(t, err)
			require.Equal(t, lux.ExitDone, res.Metadata.ExitReason, "%s\n%s", res.Metadata.Reason, res.Metadata.StderrTail)
			assert.Equal(t, record.VerdictPass, res.Verdict())
			assert.Equal(t, record.InterruptCounts{Ask: 1, Approve: 2}, res.Metadata.InterruptCounts)

			reqs := srv.TurnRequests()
			require.Len(t, reqs, 4)
			answer, ok := reqs[1].ToolResult(d.askTool)
			require.True(t, ok, "the answers did not reach the model")
			// Codex sends its answers as a map, in no fixed order.
			assert.Regexp(t, `colour[^"]*"?\W+(answers\W+)?Blue`, answer.Text, "each question got its own answer")
			assert.Regexp(t, `size[^"]*"?\W+(answers\W+)?Large`, answer.Text, "each question got its own answer")
			denied, ok := reqs[3].ToolResult(d.denyTool)
			require.True(t, ok)
			assert.Contains(t, denied.Text, d.denial)
		})
	}
}
