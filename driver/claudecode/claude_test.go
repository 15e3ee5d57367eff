package claudecode_test

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/internal/clitest"
	"github.com/luxeval/lux/modeltest"
)

// These tests run the real Claude Code CLI against a scripted model server
// on 127.0.0.1 (package modeltest), with a placeholder API key.

// run is one run of the real CLI against a script.
type run struct {
	srv       *modeltest.Server
	workspace string
	runDir    string
	events    []lux.Event
	artifacts []lux.Artifact
	stderr    strings.Builder
	pid       int
}

// answerFunc plays the user.
type answerFunc func(in lux.Interrupt) lux.Answer

// startRun starts the CLI for prompt with the config (Command and BaseURL
// are filled in) against script, and drives it to its end, answering
// interrupts with answer.
func startRun(t *testing.T, script modeltest.Script, cfg map[string]any, answer answerFunc) *run {
	t.Helper()
	claude := clitest.Find(t, "claude")
	r := &run{srv: modeltest.Start(t, script)}
	r.runDir = t.TempDir()
	r.workspace = filepath.Join(r.runDir, "artifacts")
	require.NoError(t, os.MkdirAll(r.workspace, 0o755))

	raw := liveConfig(t, claude, r.srv, cfg)
	dc, err := claudecode.Plugin().Parse(raw)
	require.NoError(t, err)

	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	s, err := dc.Start(ctx, lux.StartInfo{
		CaseID: t.Name(), Prompt: "Do the task.", RunDir: r.runDir, Workspace: r.workspace, Stderr: &r.stderr,
	})
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Close()) }()
	if p, ok := s.(interface{ Pid() int }); ok {
		r.pid = p.Pid()
	}
	for {
		ev, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		r.events = append(r.events, ev)
		if ev.Type == lux.EventInterrupt {
			require.NotNil(t, answer, "unexpected interrupt %+v", *ev.Interrupt)
			a := answer(*ev.Interrupt)
			r.events = append(r.events, lux.Event{Type: lux.EventResponded, Answer: &a})
			require.NoError(t, s.Respond(ctx, a))
		}
	}
	require.NoError(t, s.Quiesce(ctx))
	r.artifacts, err = s.Collect(ctx)
	require.NoError(t, err)
	for _, req := range r.srv.Requests() {
		assert.NotContains(t, []modeltest.Kind{modeltest.KindProxy, modeltest.KindUnknown}, req.Kind,
			"the CLI tried to reach %s %s", req.Method, req.Path)
	}
	return r
}

// liveConfig completes cfg for a run of the CLI at claude against srv:
// the command, the server's URL, a placeholder key, no inherited
// environment, and proxy variables that make the server refuse and record
// anything else the CLI tries to reach.
func liveConfig(t *testing.T, claude string, srv *modeltest.Server, cfg map[string]any) json.RawMessage {
	t.Helper()
	cfg["command"] = claude
	cfg["baseUrl"] = srv.URL()
	cfg["inheritEnv"] = false
	env, _ := cfg["env"].(map[string]string)
	if env == nil {
		env = map[string]string{}
	}
	env["ANTHROPIC_API_KEY"] = "sk-test"
	for _, kv := range srv.ProxyEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	cfg["env"] = env
	raw, err := json.Marshal(cfg)
	require.NoError(t, err)
	return raw
}

func (r *run) last() lux.Event { return r.events[len(r.events)-1] }

func (r *run) progress(kind string) []lux.Progress {
	var out []lux.Progress
	for _, e := range r.events {
		if e.Type == lux.EventProgress && e.Progress.Kind == kind {
			out = append(out, *e.Progress)
		}
	}
	return out
}

func (r *run) interrupts() []lux.Interrupt {
	var out []lux.Interrupt
	for _, e := range r.events {
		if e.Type == lux.EventInterrupt {
			out = append(out, *e.Interrupt)
		}
	}
	return out
}

func (r *run) artifactPaths() []string {
	var out []string
	for _, a := range r.artifacts {
		out = append(out, a.Path)
	}
	return out
}

func requireDone(t *testing.T, r *run) *lux.Done {
	t.Helper()
	last := r.last()
	require.Equal(t, lux.EventDone, last.Type, "run ended with %+v\nstderr: %s", last.Error, r.stderr.String())
	return last.Done
}

func TestWriteAndShell(t *testing.T) {
	t.Parallel()
	script := modeltest.Script{
		{
			Thinking: "The user wants a file.", Text: "I'll create the file.",
			ToolCalls: []modeltest.ToolCall{{ID: "toolu_write", Name: "Write", Input: map[string]any{"file_path": "hello.txt", "content": "Hello\n"}}},
			Usage:     modeltest.Usage{InputTokens: 1000, OutputTokens: 50},
		},
		{
			ToolCalls: []modeltest.ToolCall{{ID: "toolu_bash", Name: "Bash", Input: map[string]any{"command": "cat hello.txt > copy.txt && echo copied", "description": "copy"}}},
			Usage:     modeltest.Usage{InputTokens: 1200, OutputTokens: 30, CacheReadTokens: 900},
		},
		{Text: "Done.", Usage: modeltest.Usage{InputTokens: 1300, OutputTokens: 5}},
	}
	r := startRun(t, script, map[string]any{"model": "claude-sonnet-4-5", "permissionMode": "bypassPermissions"}, nil)
	done := requireDone(t, r)

	ready := r.events[0]
	require.Equal(t, lux.EventReady, ready.Type)
	assert.Equal(t, claudecode.AgentID, ready.Ready.AgentID)
	assert.Equal(t, "claude-sonnet-4-5", ready.Ready.Model)
	assert.NotEmpty(t, ready.Ready.AgentVersion)
	assert.Equal(t, "bypassPermissions", ready.Ready.Detail["permissionMode"])

	assert.Equal(t, []string{"copy.txt", "hello.txt"}, r.artifactPaths())
	b, err := os.ReadFile(filepath.Join(r.workspace, "copy.txt"))
	require.NoError(t, err)
	assert.Equal(t, "Hello\n", string(b))

	calls := r.progress(lux.KindToolCall)
	require.Len(t, calls, 2)
	assert.Equal(t, "Write", calls[0].ToolCall.Name)
	assert.Equal(t, "Bash", calls[1].ToolCall.Name)
	results := r.progress(lux.KindToolResult)
	require.Len(t, results, 2)
	assert.Equal(t, "toolu_write", results[0].ToolResult.ToolUseID)
	assert.Equal(t, "Write", results[0].ToolResult.Name)
	assert.False(t, results[0].ToolResult.IsError)
	assert.Equal(t, "Bash", results[1].ToolResult.Name)
	assert.Equal(t, "copied", results[1].ToolResult.Text)
	assert.False(t, results[1].ToolResult.IsError)
	require.Len(t, r.progress(lux.KindReasoning), 1)

	// Usage: one report per request, as the server sent it; the total and
	// the cost as the CLI reported them (its own price table: claude-
	// sonnet-4-5 at $3 in, $15 out, $0.30 cache read per million).
	var perRequest []lux.TokenUsage
	for _, p := range r.progress(lux.KindUsage) {
		perRequest = append(perRequest, p.Usage.TokenUsage)
	}
	assert.Equal(t, []lux.TokenUsage{
		{Input: 1000, Output: 50}, {Input: 1200, Output: 30, CacheRead: 900}, {Input: 1300, Output: 5},
	}, perRequest)
	require.NotNil(t, done.Usage)
	assert.Equal(t, lux.TokenUsage{Input: 3500, Output: 85, CacheRead: 900}, *done.Usage)
	require.NotNil(t, done.CostUSD)
	assert.InDelta(t, 0.012045, *done.CostUSD, 1e-9)
	assert.Equal(t, 3, done.Turns)
	require.Len(t, r.srv.TurnRequests(), 3)

	// The process group is gone once the session is quiesced.
	require.NotZero(t, r.pid)
	assertGroupGone(t, r.pid)
	// The run's config directory is outside the workspace.
	assert.DirExists(t, filepath.Join(r.runDir, "claude-code", "config"))
}

func TestQuestionAnswered(t *testing.T) {
	t.Parallel()
	question := "Which color should the file use?"
	script := modeltest.Script{
		{
			Text: "Let me ask.",
			ToolCalls: []modeltest.ToolCall{{ID: "toolu_ask", Name: "AskUserQuestion", Input: map[string]any{
				"questions": []map[string]any{{
					"question": question, "header": "Color", "multiSelect": false,
					"options": []map[string]any{{"label": "Red", "description": "Use red"}, {"label": "Blue", "description": "Use blue"}},
				}},
			}}},
		},
		{ToolCalls: []modeltest.ToolCall{{ID: "toolu_write", Name: "Write", Input: map[string]any{"file_path": "color.txt", "content": "Blue\n"}}}},
		{Text: "Done."},
	}
	r := startRun(t, script, map[string]any{"permissionMode": "bypassPermissions"}, func(in lux.Interrupt) lux.Answer {
		return lux.Answer{Kind: in.Kind, ID: in.ID, Text: "Blue"}
	})
	requireDone(t, r)

	ins := r.interrupts()
	require.Len(t, ins, 1)
	assert.Equal(t, lux.Ask, ins[0].Kind)
	assert.Equal(t, "toolu_ask", ins[0].ID)
	assert.Equal(t, question, ins[0].Question)

	// The answer reached the model.
	reqs := r.srv.TurnRequests()
	require.Len(t, reqs, 3)
	res, ok := reqs[1].ToolResult("AskUserQuestion")
	require.True(t, ok, "no AskUserQuestion result in the second request")
	assert.Contains(t, res.Text, `"`+question+`"="Blue"`)
	assert.False(t, res.IsError)
	assert.Equal(t, []string{"color.txt"}, r.artifactPaths())
}

func TestPermissionApprovedAndDenied(t *testing.T) {
	t.Parallel()
	script := modeltest.Script{
		{ToolCalls: []modeltest.ToolCall{{ID: "toolu_write", Name: "Write", Input: map[string]any{"file_path": "a.txt", "content": "A\n"}}}},
		{ToolCalls: []modeltest.ToolCall{{ID: "toolu_bash", Name: "Bash", Input: map[string]any{"command": "echo hi > b.txt", "description": "write b"}}}},
		{Text: "Done."},
	}
	// The default permission mode asks for both.
	r := startRun(t, script, map[string]any{}, func(in lux.Interrupt) lux.Answer {
		req, _ := in.Approval()
		if req.Tool == "Write" {
			return lux.Answer{Kind: in.Kind, ID: in.ID, Approved: true}
		}
		return lux.Answer{Kind: in.Kind, ID: in.ID, Approved: false, Reason: "no shell please"}
	})
	requireDone(t, r)

	ins := r.interrupts()
	require.Len(t, ins, 2)
	for i, want := range []struct{ id, tool string }{{"toolu_write", "Write"}, {"toolu_bash", "Bash"}} {
		assert.Equal(t, lux.Approve, ins[i].Kind)
		assert.Equal(t, want.id, ins[i].ID)
		req, ok := ins[i].Approval()
		require.True(t, ok)
		assert.Equal(t, want.tool, req.Tool)
	}
	assert.Equal(t, []string{"a.txt"}, r.artifactPaths(), "the approved write ran, the denied command did not")

	results := r.progress(lux.KindToolResult)
	require.Len(t, results, 2)
	assert.False(t, results[0].ToolResult.IsError)
	assert.True(t, results[1].ToolResult.IsError)
	assert.Equal(t, "no shell please", results[1].ToolResult.Text)

	reqs := r.srv.TurnRequests()
	require.Len(t, reqs, 3)
	res, ok := reqs[2].ToolResult("Bash")
	require.True(t, ok)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "no shell please")
}

func TestPermissionDeniedByMode(t *testing.T) {
	t.Parallel()
	script := modeltest.Script{
		{ToolCalls: []modeltest.ToolCall{{ID: "toolu_bash", Name: "Bash", Input: map[string]any{"command": "echo hi > b.txt", "description": "write b"}}}},
		{Text: "I could not."},
	}
	r := startRun(t, script, map[string]any{"permissionMode": "dontAsk"}, nil)
	requireDone(t, r)
	denied := r.progress(claudecode.KindPermissionDenied)
	require.Len(t, denied, 1)
	var pd claudecode.PermissionDenied
	require.NoError(t, json.Unmarshal(denied[0].Payload, &pd))
	assert.Equal(t, "Bash", pd.ToolName)
	assert.Equal(t, "toolu_bash", pd.ToolUseID)
	results := r.progress(lux.KindToolResult)
	require.Len(t, results, 1)
	assert.True(t, results[0].ToolResult.IsError)
	assert.Empty(t, r.artifacts)
}

func TestAPIError(t *testing.T) {
	t.Parallel()
	message := "the model is on fire"
	script := modeltest.Script{
		{Fail: &modeltest.Failure{Status: 500, Message: message}},
	}
	r := startRun(t, script, map[string]any{"env": map[string]string{"CLAUDE_CODE_MAX_RETRIES": "1"}}, nil)
	last := r.last()
	require.Equal(t, lux.EventError, last.Type)
	assert.Equal(t, lux.ExitError, last.Error.ExitReason)
	assert.Contains(t, last.Error.Reason, "API Error: 500")
	assert.Contains(t, last.Error.Reason, message)
	assert.Len(t, r.progress(claudecode.KindAPIRetry), 1)
	assert.Len(t, r.srv.TurnRequests(), 2, "one request and one retry")
	results := r.progress(claudecode.KindResult)
	require.Len(t, results, 1)
	var s claudecode.Summary
	require.NoError(t, json.Unmarshal(results[0].Payload, &s))
	assert.True(t, s.IsError)
	assert.Equal(t, "api_error", s.TerminalReason)
}
