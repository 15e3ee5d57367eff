package subprocess_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/internal/clock"
	"github.com/luxeval/lux/internal/ctxtest"
	"github.com/luxeval/lux/internal/drivertest"
	"github.com/luxeval/lux/internal/proc"
)

// fakeAgent is the path of the test agent built from testdata/fakeagent.
var fakeAgent string

func TestMain(m *testing.M) {
	if os.Getenv(harnessEnv) != "" {
		os.Exit(runHarness())
	}
	if os.Getenv(promptHarnessEnv) != "" {
		os.Exit(runPromptHarness())
	}
	dir, err := os.MkdirTemp("", "lux-subprocess-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeAgent = filepath.Join(dir, "fakeagent")
	build := exec.Command("go", "build", "-o", fakeAgent, "./testdata/fakeagent")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the fake agent:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

type run struct {
	session   lux.Session
	workspace string
	runDir    string
	stderr    *drivertest.Buffer
}

// startAgent starts the fake agent playing scenario with cfg's other fields.
func startAgent(t *testing.T, cfg map[string]any, scenario ...string) run {
	t.Helper()
	return startAgentCtx(t, context.Background(), cfg, scenario...)
}

// startAgentCtx is startAgent with the context given to Start.
func startAgentCtx(t *testing.T, ctx context.Context, cfg map[string]any, scenario ...string) run {
	t.Helper()
	if cfg == nil {
		cfg = map[string]any{}
	}
	if _, ok := cfg["command"]; !ok {
		cfg["command"] = fakeAgent
	}
	if _, ok := cfg["args"]; !ok {
		cfg["args"] = scenario
	}
	raw, err := json.Marshal(cfg)
	require.NoError(t, err)
	dc, err := subprocess.Plugin().Parse(raw)
	require.NoError(t, err)
	r := run{workspace: t.TempDir(), runDir: t.TempDir(), stderr: &drivertest.Buffer{}}
	s, err := dc.Start(ctx, lux.StartInfo{
		CaseID: "case-1", Prompt: "fix the bug", RunDir: r.runDir, Workspace: r.workspace, Stderr: r.stderr,
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	r.session = s
	return r
}

// events reads until io.EOF, answering interrupts with answer.
func events(t *testing.T, s lux.Session, answer func(lux.Interrupt) lux.Answer) []lux.Event {
	t.Helper()
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	var got []lux.Event
	for {
		ev, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			return got
		}
		require.NoError(t, err, "after %d events", len(got))
		got = append(got, ev)
		if ev.Type == lux.EventInterrupt {
			require.NotNil(t, answer, "unexpected interrupt %+v", ev.Interrupt)
			require.NoError(t, s.Respond(ctx, answer(*ev.Interrupt)))
		}
	}
}

var ignoreTime = cmpopts.IgnoreFields(lux.Event{}, "Time")

func readyEvent() lux.Event {
	return lux.Event{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "fake", AgentVersion: "1.0", Model: "m1"}}
}

func progress(id, kind string, payload string) lux.Event {
	p := lux.NewProgress(id, kind, json.RawMessage(payload))
	return lux.Event{Type: lux.EventProgress, Progress: &p}
}

func done() lux.Event { return lux.Event{Type: lux.EventDone, Done: &lux.Done{}} }

func errorEvent(exit lux.ExitReason, reason string) lux.Event {
	return lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: exit, Reason: reason}}
}

func TestHappyPath(t *testing.T) {
	r := startAgent(t, nil, "happy")
	got := events(t, r.session, nil)
	cost := 0.25
	want := []lux.Event{
		progress("boot", "status", `"warming"`),
		readyEvent(),
		{Type: lux.EventProgress, Progress: &lux.Progress{ID: "m1", Kind: lux.KindAgentMessage, Message: &lux.Message{Text: "on it: fix the bug"}}},
		{Type: lux.EventProgress, Progress: &lux.Progress{ID: "tc-1", Kind: lux.KindToolCall,
			ToolCall: &lux.ToolCall{Name: "Write", Input: map[string]any{"path": "out.txt"}, ToolUseID: "1"}}},
		{Type: lux.EventProgress, Progress: &lux.Progress{ID: "tr-1", Kind: lux.KindToolResult,
			ToolResult: &lux.ToolResult{Name: "Write", ToolUseID: "1", Content: "ok", Text: "ok"}}},
		offProtocol(1, "starting up (a log line)"),
		{Type: lux.EventDone, Done: &lux.Done{
			Usage:   &lux.TokenUsage{Input: 10, Output: 5, CacheRead: 2, CacheCreation: 1},
			CostUSD: &cost,
			Summary: map[string]any{
				"usage": map[string]any{"input": float64(10), "output": float64(5), "cacheRead": float64(2), "cacheCreation": float64(1)},
				"cost":  0.25, "note": "fine",
			},
		}},
	}
	if diff := cmp.Diff(want, got, ignoreTime); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	for _, ev := range got[2:] {
		assert.False(t, ev.Time.IsZero(), "%s without a time", ev.Type)
	}

	arts, err := r.session.Collect(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []lux.Artifact{{Path: "out.txt", Size: 5, SHA256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}}, arts)
}

func TestInterrupts(t *testing.T) {
	r := startAgent(t, nil, "approve")
	answers := map[string]lux.Answer{
		"a1": {Kind: lux.Approve, ID: "a1", Approved: true, Reason: "read-only"},
		"a2": {Kind: lux.Approve, ID: "a2", Approved: false},
		"c1": {Kind: lux.Custom, ID: "c1", Payload: map[string]any{"action": "stop"}},
	}
	got := events(t, r.session, func(in lux.Interrupt) lux.Answer { return answers[in.ID] })
	want := []lux.Event{
		readyEvent(),
		{Type: lux.EventInterrupt, Interrupt: &lux.Interrupt{Kind: lux.Approve, ID: "a1", Request: map[string]any{"tool": "Bash", "command": "ls"}}},
		progress("got-a1", "answer-received", `{"id":"a1","reason":"read-only","type":"approve"}`),
		{Type: lux.EventInterrupt, Interrupt: &lux.Interrupt{Kind: lux.Approve, ID: "a2", Request: map[string]any{"tool": "Bash", "command": "rm -rf /"}}},
		progress("got-a2", "answer-received", `{"id":"a2","type":"deny"}`),
		{Type: lux.EventInterrupt, Interrupt: &lux.Interrupt{Kind: lux.Custom, ID: "c1",
			Payload: map[string]any{"type": "lux.conversation-turn.v1", "message": "more?"}}},
		progress("got-c1", "answer-received", `{"id":"c1","payload":{"action":"stop"},"type":"customToolResponse"}`),
		done(),
	}
	if diff := cmp.Diff(want, got, ignoreTime, cmp.Transformer("json", normJSON)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestAsk(t *testing.T) {
	r := startAgent(t, nil, "ask")
	got := events(t, r.session, func(in lux.Interrupt) lux.Answer {
		return lux.Answer{Kind: lux.Ask, ID: in.ID, Text: "blue"}
	})
	want := []lux.Event{
		readyEvent(),
		{Type: lux.EventInterrupt, Interrupt: &lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "Which color?",
			Context: map[string]any{"options": []any{"red", "blue"}}}},
		progress("got-q1", "answer-received", `{"id":"q1","text":"blue","type":"answer"}`),
		done(),
	}
	if diff := cmp.Diff(want, got, ignoreTime, cmp.Transformer("json", normJSON)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// normJSON compares raw JSON by value.
func normJSON(r json.RawMessage) any {
	var v any
	if err := json.Unmarshal(r, &v); err != nil {
		return string(r)
	}
	return v
}

// TestIdleTimeout: an agent silent after its progress ends the run with an
// idle timeout of the configured period, on a manual clock.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	m := &clock.Manual{}
	r := startAgentCtx(t, clock.With(context.Background(), m), map[string]any{"idleTimeout": "300ms"}, "silent")
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	var got []lux.Event
	for range 2 {
		ev, err := r.session.Next(ctx)
		require.NoError(t, err)
		got = append(got, ev)
	}
	m.Advance(300*time.Millisecond - time.Nanosecond)
	assert.Equal(t, 1, m.Pending(), "expired before its period")
	m.Advance(time.Nanosecond)
	got = append(got, events(t, r.session, nil)...)
	require.NoError(t, r.session.Quiesce(context.Background()))
	want := []lux.Event{readyEvent(), progress("p", "status", `"thinking"`), errorEvent(lux.ExitIdleTimeout, "no event for 300ms")}
	if diff := cmp.Diff(want, got, ignoreTime, cmp.Transformer("json", normJSON)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestEndings(t *testing.T) {
	tests := []struct {
		name     string
		cfg      map[string]any
		scenario []string
		want     []lux.Event
	}{
		{
			name: "never ready", cfg: map[string]any{"idleTimeout": 100}, scenario: []string{"silent-before-ready"},
			want: []lux.Event{errorEvent(lux.ExitError, "agent never became ready: no event for 100ms")},
		},
		{
			name: "exit without a terminal event", scenario: []string{"crash"},
			want: []lux.Event{readyEvent(), errorEvent(lux.ExitError, "agent exited before done (code=2, signal=none)\nstderr:\nfatal: boom")},
		},
		{
			name: "the agent's error", scenario: []string{"error"},
			want: []lux.Event{readyEvent(), errorEvent(lux.ExitError, "no API key")},
		},
		{
			name: "oversized line", cfg: map[string]any{"maxLineBytes": 1000}, scenario: []string{"oversized"},
			want: []lux.Event{readyEvent(), errorEvent(lux.ExitError, "stdout line exceeded 1000 bytes")},
		},
		{
			name: "malformed and interleaved lines are ignored", scenario: []string{"noisy"},
			want: []lux.Event{readyEvent(), progress("p1", "status", "1"),
				offProtocol(10, "plain log line", `{"type":"ready"}`, `{"not":"an event"}`), done()},
		},
		{
			name: "interrupts beyond maxInterrupts", cfg: map[string]any{"maxInterrupts": 2}, scenario: []string{"many-asks"},
			want: []lux.Event{
				readyEvent(),
				{Type: lux.EventInterrupt, Interrupt: &lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "again?"}},
				progress("got-q1", "answer-received", `{"id":"q1","text":"ok","type":"answer"}`),
				{Type: lux.EventInterrupt, Interrupt: &lux.Interrupt{Kind: lux.Ask, ID: "q2", Question: "again?"}},
				progress("got-q2", "answer-received", `{"id":"q2","text":"ok","type":"answer"}`),
				errorEvent(lux.ExitMaxInteractions, "exceeded maxInterrupts (2)"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := startAgent(t, tt.cfg, tt.scenario...)
			got := events(t, r.session, func(in lux.Interrupt) lux.Answer { return lux.Answer{Kind: in.Kind, ID: in.ID, Text: "ok"} })
			if diff := cmp.Diff(tt.want, got, ignoreTime, cmp.Transformer("json", normJSON)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			require.NoError(t, r.session.Quiesce(context.Background()))
		})
	}
}

func TestStderrForwarded(t *testing.T) {
	r := startAgent(t, nil, "noisy")
	events(t, r.session, nil)
	require.NoError(t, r.session.Quiesce(context.Background()))
	assert.Equal(t, "stderr noise\n", r.stderr.String())
}

func childPid(t *testing.T, ev lux.Event) int {
	t.Helper()
	require.Equal(t, lux.EventProgress, ev.Type)
	require.Equal(t, "pid", ev.Progress.Kind)
	var pid int
	require.NoError(t, json.Unmarshal(ev.Progress.Payload, &pid))
	return pid
}

// gone waits for process pid to end, by proc.WaitEnded (no polling); the
// safety net fails the test, it never decides it.
func gone(t *testing.T, pid int) {
	t.Helper()
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	if err := proc.WaitEnded(ctx, pid); err != nil {
		t.Fatalf("process %d survived the run: %v", pid, err)
	}
}

func TestBackgroundChildDoesNotSurvive(t *testing.T) {
	// The agent reports done and exits; its child ignores SIGTERM and holds stdout.
	r := startAgent(t, nil, "spawn")
	got := events(t, r.session, nil)
	require.Len(t, got, 3)
	child := childPid(t, got[1])
	assert.Equal(t, lux.EventDone, got[2].Type)
	require.NoError(t, r.session.Quiesce(context.Background()))
	gone(t, child)
}

func TestCancellation(t *testing.T) {
	r := startAgent(t, map[string]any{"args": []string{"spawn", "hang"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ev, err := r.session.Next(ctx)
	require.NoError(t, err)
	require.Equal(t, lux.EventReady, ev.Type)
	ev, err = r.session.Next(ctx)
	require.NoError(t, err)
	child := childPid(t, ev)
	leader := r.session.(*driver.Session).Pid()

	// Cancelled once Next waits on it: the agent hangs, no event is coming.
	wctx, wcancel := ctxtest.CancelOnWait(ctx)
	defer wcancel()
	_, err = r.session.Next(wctx)
	require.ErrorIs(t, err, context.Canceled)

	require.NoError(t, r.session.Quiesce(context.Background()))
	assert.False(t, proc.Alive(leader), "agent survived Quiesce")
	gone(t, child)
}

func TestEnvironment(t *testing.T) {
	t.Setenv("LUX_SUBPROCESS_TEST_HOST", "host-secret")
	envOf := func(t *testing.T, cfg map[string]any) map[string]any {
		t.Helper()
		r := startAgent(t, cfg, "env", "a b", "c")
		got := events(t, r.session, nil)
		require.Len(t, got, 3)
		var env map[string]any
		require.NoError(t, json.Unmarshal(got[1].Progress.Payload, &env))
		env["cwd"] = relTo(t, r.workspace, env["cwd"].(string))
		env["LUX_ARTIFACTS_DIR"] = relTo(t, r.workspace, env["LUX_ARTIFACTS_DIR"].(string))
		env["LUX_RUN_DIR"] = relTo(t, r.runDir, env["LUX_RUN_DIR"].(string))
		return env
	}

	t.Run("not inherited by default", func(t *testing.T) {
		got := envOf(t, map[string]any{"env": map[string]string{"CUSTOM": "x"}})
		want := map[string]any{
			"LUX_CASE_ID": "case-1", "LUX_RUN_DIR": ".", "LUX_ARTIFACTS_DIR": ".", "LUX_PROMPT": "fix the bug",
			"PATH": driver.DefaultPath, "CUSTOM": "x", "cwd": ".", "args": []any{"a b", "c"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("environment (-want +got):\n%s", diff)
		}
	})
	t.Run("inherited when asked", func(t *testing.T) {
		got := envOf(t, map[string]any{"inheritEnv": true})
		assert.Equal(t, "host-secret", got["LUX_SUBPROCESS_TEST_HOST"])
		assert.Equal(t, os.Getenv("PATH"), got["PATH"])
		assert.Equal(t, "fix the bug", got["LUX_PROMPT"])
	})
	t.Run("PATH and cwd from the config", func(t *testing.T) {
		require.NoError(t, os.MkdirAll(filepath.Join(t.TempDir(), "x"), 0o755))
		got := envOf(t, map[string]any{"env": map[string]string{"PATH": "/opt/bin"}, "cwd": "."})
		assert.Equal(t, "/opt/bin", got["PATH"])
		assert.Equal(t, ".", got["cwd"])
	})
}

func relTo(t *testing.T, base, path string) string {
	t.Helper()
	b, err := filepath.EvalSymlinks(base)
	require.NoError(t, err)
	p, err := filepath.EvalSymlinks(path)
	require.NoError(t, err)
	rel, err := filepath.Rel(b, p)
	require.NoError(t, err)
	return rel
}

func TestPromptOnStdin(t *testing.T) {
	r := startAgent(t, map[string]any{"promptOnStdin": true}, "stdin-prompt")
	got := events(t, r.session, nil)
	require.Len(t, got, 3)
	assert.JSONEq(t, `"fix the bug\n"`, string(got[1].Progress.Payload))
}

func TestStartFailure(t *testing.T) {
	tests := []struct {
		name    string
		command string
		want    string
	}{
		{"missing path", "/nonexistent/agent", "subprocess: failed to start /nonexistent/agent: command: resolve /nonexistent/agent: stat /nonexistent/agent: no such file or directory"},
		{"missing name", "lux-no-such-agent", "subprocess: failed to start lux-no-such-agent: command: lux-no-such-agent not found on PATH"},
		{"not executable", "./testdata/fakeagent/main.go", "not an executable file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dc, err := subprocess.Plugin().Parse(json.RawMessage(`{"command":` + fmt.Sprintf("%q", tt.command) + `}`))
			require.NoError(t, err)
			_, err = dc.Start(context.Background(), lux.StartInfo{Workspace: t.TempDir(), Stderr: io.Discard})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// offProtocol is the event that reports ignored lines.
func offProtocol(dropped int, first ...string) lux.Event {
	b, _ := json.Marshal(lux.OffProtocol{Dropped: dropped, First: first})
	return lux.Event{Type: lux.EventProgress, Progress: &lux.Progress{ID: "off-protocol", Kind: lux.KindOffProtocol, Payload: b}}
}

// The prompt file is written straight into the driver's directory
// (StartInfo.TempDir), which the harness empties or removes after the run,
// rather than in a directory of its own made and removed for each run.
func TestPromptFileIsInTheDriversDirectory(t *testing.T) {
	raw, err := json.Marshal(map[string]any{"command": fakeAgent, "args": []string{"env"}})
	require.NoError(t, err)
	dc, err := subprocess.Plugin().Parse(raw)
	require.NoError(t, err)
	temp := t.TempDir()
	s, err := dc.Start(context.Background(), lux.StartInfo{
		CaseID: "case-1", Prompt: "fix the bug", RunDir: t.TempDir(), Workspace: t.TempDir(), TempDir: temp, Stderr: &drivertest.Buffer{},
	})
	require.NoError(t, err)
	_ = events(t, s, nil)
	require.NoError(t, s.Close())
	entries, err := os.ReadDir(temp)
	require.NoError(t, err)
	require.Len(t, entries, 1, "what the driver's directory holds")
	assert.Equal(t, subprocess.PromptFileName, entries[0].Name())
	assert.True(t, entries[0].Type().IsRegular(), "the prompt file is a file, straight in the driver's directory")
	got, err := os.ReadFile(filepath.Join(temp, subprocess.PromptFileName))
	require.NoError(t, err)
	assert.Equal(t, "fix the bug", string(got))
}
