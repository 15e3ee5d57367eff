package codex_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/scripted"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/codex"
	"github.com/luxeval/lux/internal/ctxtest"
	"github.com/luxeval/lux/modeltest"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// loop runs a case through an orchestrator whose registry holds the codex
// driver, the scripted answerer and the built-in assertions, and returns
// the result and the recorded events.
func loop(t *testing.T, c *lux.Case) (*record.Run, []lux.Event) {
	t.Helper()
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(codex.Plugin()))
	require.NoError(t, reg.RegisterAnswerer(scripted.Plugin()))
	require.NoError(t, assertion.Register(reg))
	// The strongest level this machine offers (landlock+netns where the
	// kernel allows namespaces): the CLI must work there too.
	strongest, _, _ := sandbox.Available()
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: t.TempDir(), Sandbox: sandbox.Config{Level: strongest}})
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	res, err := o.Run(ctx, c)
	require.NoError(t, err)
	if l := strongest; l.AtLeast(sandbox.LevelLandlock) {
		// The CLI ran confined, with its own sandbox off, and the record says so.
		sb := res.Metadata.Provenance.Sandbox
		require.NotNil(t, sb)
		assert.Equal(t, l, sb.Level)
		require.Len(t, sb.AgentSandbox, 1)
		assert.Contains(t, sb.AgentSandbox[0], "codex: sandbox_mode danger-full-access instead of")
	}
	all, err := record.ReadEvents(filepath.Join(res.Dir, "events.jsonl"))
	require.NoError(t, err)
	var events []lux.Event // the agent's, without the harness's lifecycle and answers
	for _, e := range all {
		if e.Type != lux.EventLifecycle && e.Type != lux.EventResponded {
			events = append(events, e)
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("run %s: %s %s\nstderr tail:\n%s", res.Dir, res.Metadata.ExitReason, res.Metadata.Reason, res.Metadata.StderrTail)
			for _, a := range res.Grading.Assertions {
				t.Logf("assertion %s: passed=%v %s %s", a.ID, a.Passed, a.Comment, a.Error)
			}
		}
	})
	return res, events
}

func interrupts(events []lux.Event) []lux.Interrupt {
	var out []lux.Interrupt
	for _, e := range events {
		if e.Type == lux.EventInterrupt {
			out = append(out, *e.Interrupt)
		}
	}
	return out
}

// TestLoopWritesAndRuns: exec mode writes a file with apply_patch, runs a
// shell command, and the case's assertions pass.
func TestLoopWritesAndRuns(t *testing.T) {
	findCodex(t)
	t.Parallel()
	srv := modeltest.Start(t, modeltest.Script{
		{Thinking: "Write the greeting, then list it.", Text: "Writing hello.txt.", ToolCalls: []modeltest.ToolCall{
			patch("*** Begin Patch\n*** Add File: hello.txt\n+Hello from the model\n*** End Patch\n"),
		}, Usage: modeltest.Usage{InputTokens: 1000, OutputTokens: 50, ReasoningTokens: 10}},
		{ToolCalls: []modeltest.ToolCall{shell("wc -l hello.txt > count.txt && cat count.txt")},
			Usage: modeltest.Usage{InputTokens: 200, OutputTokens: 30, CacheReadTokens: 1000}},
		{Text: "Done: hello.txt has one line.", Usage: modeltest.Usage{InputTokens: 300, OutputTokens: 5, CacheReadTokens: 1000}},
	})
	res, events := loop(t, &lux.Case{
		ID:     "codex-writes-and-runs",
		Prompt: "Write hello.txt and count its lines.",
		Driver: &lux.PluginRef{Name: "codex", Config: driverConfig(t, srv, nil)},
		Assertions: []lux.AssertionSpec{
			assertion.RunSucceeded(),
			assertion.FileContains("hello.txt", "Hello from the model"),
			assertion.FileContains("count.txt", "1 hello.txt"),
			assertion.ToolCalled(codex.ToolFileChange),
			assertion.ToolCalledWith(codex.ToolCommand, assertion.ArgsContains("wc -l hello.txt")),
			assertion.Contains("one line"),
		},
	})

	assert.Equal(t, record.VerdictPass, res.Verdict())
	m := res.Metadata
	assert.Equal(t, lux.ExitDone, m.ExitReason)
	// Usage as the CLI reported it: input 1000+1200+1300 tokens of which
	// 2000 cached, output 85.
	assert.Equal(t, &lux.TokenUsage{Input: 1500, Output: 85, CacheRead: 2000}, m.Usage.Agent)
	assert.Equal(t, record.ToolOutcomes{Reported: 2, Total: 2, Succeeded: 2}, m.ToolCalls)
	require.Len(t, m.Provenance.Runtime.Commands, 1)
	assert.Equal(t, "0.169.0", m.Provenance.Runtime.Commands[0].Version)
	assert.Equal(t, "codex-cli 0.169.0", m.Provenance.Runtime.Commands[0].RawVersion)
	assert.Equal(t, "0.169.0", m.Driver.AgentVersion)
	assert.Equal(t, "codex-cli 0.169.0", m.Driver.AgentVersionRaw)
	assert.Contains(t, m.StderrTail, "Reading additional input from stdin", "stderr tail kept")
	assert.Equal(t, lux.EventReady, events[0].Type)

	reqs := srv.TurnRequests()
	require.Len(t, reqs, 3)
	assert.Equal(t, "Write hello.txt and count its lines.", reqs[0].LastUserText())
	out, ok := reqs[2].ToolResult("exec_command")
	require.True(t, ok)
	assert.Contains(t, out.Text, "1 hello.txt")
	assertHermetic(t, srv)
}

// TestLoopAsk: in app-server mode the model's question reaches the
// scripted answerer, and its answer reaches the model.
func TestLoopAsk(t *testing.T) {
	findCodex(t)
	t.Parallel()
	srv := modeltest.Start(t, modeltest.Script{
		{Text: "I need to know the colour.", ToolCalls: []modeltest.ToolCall{{Name: "request_user_input", Input: map[string]any{
			"questions": []any{map[string]any{"id": "color", "header": "Colour", "question": "Which colour should the banner be?",
				"options": []any{map[string]any{"label": "Blue", "description": "calm"}, map[string]any{"label": "Red", "description": "loud"}}}},
		}}}},
		{ToolCalls: []modeltest.ToolCall{shell("echo blue > banner.txt")}},
		{Text: "The banner is blue."},
	})
	res, events := loop(t, &lux.Case{
		ID:       "codex-asks",
		Prompt:   "Make a banner in the colour I like.",
		Requires: []lux.Capability{lux.CanAsk},
		Driver:   &lux.PluginRef{Name: "codex", Config: driverConfig(t, srv, map[string]any{"mode": "app-server"})},
		Answerer: &lux.PluginRef{Name: "scripted", Config: map[string]any{"rules": []any{
			map[string]any{"match": "(?i)which colour", "answer": "Blue"},
		}}},
		Assertions: []lux.AssertionSpec{
			assertion.RunSucceeded(),
			assertion.InterruptCount(assertion.Kind(lux.Ask), assertion.Min(1), assertion.Max(1)),
			assertion.FileContains("banner.txt", "blue"),
		},
	})

	assert.Equal(t, record.VerdictPass, res.Verdict())
	asks := interrupts(events)
	require.Len(t, asks, 1)
	assert.Equal(t, "Which colour should the banner be?", asks[0].Question)
	reqs := srv.TurnRequests()
	require.GreaterOrEqual(t, len(reqs), 2)
	answer, ok := reqs[1].ToolResult("request_user_input")
	require.True(t, ok, "the answer is sent back to the model")
	assert.Contains(t, answer.Text, `"Blue"`)
	assert.Equal(t, record.InterruptCounts{Ask: 1}, res.Metadata.InterruptCounts)
	assertHermetic(t, srv)
}

// TestLoopApproval: with approvalPolicy "untrusted" a shell command waits
// for approval; approved it runs, denied it does not and the model hears so.
func TestLoopApproval(t *testing.T) {
	findCodex(t)
	t.Parallel()
	for _, approve := range []bool{true, false} {
		name := map[bool]string{true: "approved", false: "denied"}[approve]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.Start(t, modeltest.Script{
				{ToolCalls: []modeltest.ToolCall{shell("echo yes > approved.txt")}},
				{Text: "finished"},
			})
			res, events := loop(t, &lux.Case{
				ID:       "codex-approval-" + name,
				Prompt:   "Create approved.txt.",
				Requires: []lux.Capability{lux.CanApprove},
				Driver: &lux.PluginRef{Name: "codex", Config: driverConfig(t, srv, map[string]any{
					"mode": "app-server", "approvalPolicy": "untrusted"})},
				Answerer: &lux.PluginRef{Name: "scripted", Config: map[string]any{"rules": []any{
					map[string]any{"kind": "approve", "match": "approved.txt", "approve": approve, "reason": "scripted"},
				}}},
				Assertions: []lux.AssertionSpec{assertion.FileExists("approved.txt")},
			})

			assert.Equal(t, lux.ExitDone, res.Metadata.ExitReason, res.Metadata.Reason)
			ins := interrupts(events)
			require.Len(t, ins, 1)
			assert.Equal(t, lux.Approve, ins[0].Kind)
			req, ok := ins[0].Approval()
			require.True(t, ok, "%#v", ins[0].Request)
			assert.Equal(t, lux.Approval{Action: lux.ActionCommand, Tool: codex.ToolCommand, Command: "echo yes > approved.txt",
				Cwd: req.Cwd, Input: req.Input, NoDenyReason: true}, req)
			assert.NotEmpty(t, req.Cwd)
			reqs := srv.TurnRequests()
			require.Len(t, reqs, 2)
			result, ok := reqs[1].ToolResult("exec_command")
			require.True(t, ok)
			if approve {
				assert.Equal(t, record.VerdictPass, res.Verdict())
				assert.Contains(t, result.Text, "Process exited with code 0")
				assert.Equal(t, record.ToolOutcomes{Reported: 1, Total: 1, Succeeded: 1}, res.Metadata.ToolCalls)
			} else {
				assert.Equal(t, record.VerdictFail, res.Verdict(), "the command did not run")
				assert.Contains(t, result.Text, "rejected by user")
				assert.Equal(t, record.ToolOutcomes{Reported: 1, Total: 1, Failed: 1}, res.Metadata.ToolCalls)
			}
			assertHermetic(t, srv)
		})
	}
}

// TestLoopAPIError: an API error ends the run in error with the CLI's
// message, in both modes.
func TestLoopAPIError(t *testing.T) {
	findCodex(t)
	t.Parallel()
	for _, mode := range []string{"exec", "app-server"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.Start(t, modeltest.Script{
				{Fail: &modeltest.Failure{Status: 400, Message: "scripted failure: model is on strike"}},
			})
			res, events := loop(t, &lux.Case{
				ID:         "codex-api-error-" + mode,
				Prompt:     "Do anything.",
				Driver:     &lux.PluginRef{Name: "codex", Config: driverConfig(t, srv, map[string]any{"mode": mode})},
				Assertions: []lux.AssertionSpec{assertion.RunSucceeded()},
			})

			m := res.Metadata
			assert.Equal(t, lux.ExitError, m.ExitReason)
			assert.Contains(t, m.Reason, "scripted failure: model is on strike")
			last := events[len(events)-1]
			require.Equal(t, lux.EventError, last.Type)
			assert.Contains(t, last.Error.Reason, "scripted failure: model is on strike")
			assert.NotEqual(t, record.VerdictPass, res.Verdict())
			assertHermetic(t, srv)
		})
	}
}

// TestLoopExecCannotAsk: a case that needs questions answered is refused
// in exec mode before anything runs.
func TestLoopExecCannotAsk(t *testing.T) {
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(codex.Plugin()))
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: t.TempDir()})
	_, err := o.Run(context.Background(), &lux.Case{
		Prompt: "Ask me.", Requires: []lux.Capability{lux.CanAsk},
		Driver: &lux.PluginRef{Name: "codex", Config: map[string]any{"command": "/nonexistent/codex"}},
	})
	require.Error(t, err)
	assert.True(t, errors.Is(err, orchestrator.ErrMissingCapability), "%v", err)
	assert.True(t, strings.Contains(err.Error(), "ask"), "%v", err)
}

// TestPreflightMissingCLI: a missing CLI is reported before anything
// runs, with the install hint.
func TestPreflightMissingCLI(t *testing.T) {
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(codex.Plugin()))
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: t.TempDir()})
	diags := o.Preflight(context.Background(), []*lux.Case{{
		ID: "c", Prompt: "p", Driver: &lux.PluginRef{Name: "codex", Config: map[string]any{"command": "lux-no-such-codex"}},
	}})
	assert.False(t, orchestrator.Healthy(diags))
	var found bool
	for _, d := range diags {
		if d.ID == "command:lux-no-such-codex" {
			found = true
			assert.Equal(t, orchestrator.StatusFail, d.Status)
			assert.Equal(t, "npm install -g @openai/codex", d.Detail)
		}
	}
	assert.True(t, found, "%+v", diags)
}
