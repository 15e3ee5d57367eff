package mcpprobe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/mcpprobe"
	"github.com/luxeval/lux/internal/clock"
	"github.com/luxeval/lux/internal/drivertest"
	"github.com/luxeval/lux/record"
)

// outcome is what one probe produced.
type outcome struct {
	events    []lux.Event
	artifacts []lux.Artifact
	stderr    string
	workspace string
	// advanced: the test had advanced the clock when the terminal event
	// came (probeDriven).
	advanced bool
}

// terminal is the run's last event.
func (o outcome) terminal() lux.Event { return o.events[len(o.events)-1] }

// reason is the error event's reason, or "".
func (o outcome) reason() string {
	if e := o.terminal(); e.Type == lux.EventError {
		return e.Error.Reason
	}
	return ""
}

// progress returns the payloads of the progress events of kind.
func (o outcome) progress(kind string) []*lux.Progress {
	var out []*lux.Progress
	for _, e := range o.events {
		if e.Type == lux.EventProgress && e.Progress.Kind == kind {
			out = append(out, e.Progress)
		}
	}
	return out
}

// stdioConfig is a config that serves kind from the test binary over stdio.
func stdioConfig(t *testing.T, kind string, fields map[string]any) json.RawMessage {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cfg := map[string]any{"command": exe, "env": map[string]string{"LUX_MCP_TEST_SERVER": kind}}
	for k, v := range fields {
		cfg[k] = v
	}
	raw, err := json.Marshal(cfg)
	require.NoError(t, err)
	return raw
}

// httpConfig serves kind over streamable HTTP on 127.0.0.1 and returns a
// config that reaches it.
func httpConfig(t *testing.T, kind string, fields map[string]any) json.RawMessage {
	t.Helper()
	release := make(chan struct{})
	srv := newServer(kind, release)
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(release) }) // runs first
	cfg := map[string]any{"url": ts.URL}
	for k, v := range fields {
		cfg[k] = v
	}
	raw, err := json.Marshal(cfg)
	require.NoError(t, err)
	return raw
}

// probe runs one probe to its end the way the orchestrator does, on a
// manual clock that nothing advances: no time limit of the probe can pass,
// however slow the machine.
func probe(t *testing.T, raw json.RawMessage) outcome { return probeDriven(t, raw, nil) }

// driving is what a test's drive function gets: the probe's clock, its
// stderr and workspace, and a context that ends with the probe.
type driving struct {
	t         *testing.T
	ctx       context.Context
	clk       *clock.Manual
	stderr    *drivertest.Buffer
	workspace string
	advanced  atomic.Bool // the clock was advanced
}

// advance moves the probe's clock by d.
func (d *driving) advance(by time.Duration) {
	d.advanced.Store(true)
	d.clk.Advance(by)
}

// armed waits until the probe has scheduled n timers in all.
func (d *driving) armed(n int) bool {
	if err := d.clk.WaitScheduled(d.ctx, n); err != nil {
		d.t.Errorf("the probe never armed timer %d (it has %d): %v", n, d.clk.Scheduled(), err)
		return false
	}
	return true
}

// until waits for cond, checking it every few milliseconds: an event the
// test cannot be told of (a line on stderr, a file the server writes).
func (d *driving) until(what string, cond func() bool) bool {
	for !cond() {
		select {
		case <-d.ctx.Done():
			d.t.Errorf("never happened: %s", what)
			return false
		case <-time.After(5 * time.Millisecond):
		}
	}
	return true
}

// exists reports whether the server wrote name in the workspace.
func (d *driving) exists(name string) bool {
	_, err := os.Stat(filepath.Join(d.workspace, name))
	return err == nil
}

// probeDriven is probe with drive running beside it, to move the clock
// when the test has seen what it waits for.
func probeDriven(t *testing.T, raw json.RawMessage, drive func(d *driving)) outcome {
	t.Helper()
	cfg, err := mcpprobe.Plugin().Parse(raw)
	require.NoError(t, err)
	ws := t.TempDir()
	var stderr drivertest.Buffer
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	clk := &clock.Manual{}
	s, err := cfg.Start(clock.With(ctx, clk), lux.StartInfo{CaseID: "probe", RunDir: t.TempDir(), Workspace: ws, Stderr: &stderr})
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	d := &driving{t: t, ctx: ctx, clk: clk, stderr: &stderr, workspace: ws}
	driven := make(chan struct{})
	if drive != nil {
		go func() { defer close(driven); drive(d) }()
	} else {
		close(driven)
	}
	var o outcome
	o.workspace = ws
	for {
		ev, err := s.Next(ctx)
		require.NoError(t, err, "events so far: %v", o.events)
		o.events = append(o.events, ev)
		if ev.Terminal() {
			break
		}
	}
	o.advanced = d.advanced.Load()
	if r := o.reason(); r != "" {
		t.Logf("the run failed: %s", r)
	}
	require.NoError(t, s.Quiesce(ctx))
	<-driven
	o.artifacts, err = s.Collect(ctx)
	require.NoError(t, err)
	o.stderr = stderr.String()
	return o
}

// both runs a test over stdio and over streamable HTTP.
func both(t *testing.T, kind string, fields map[string]any, check func(t *testing.T, o outcome)) {
	t.Run("stdio", func(t *testing.T) { check(t, probe(t, stdioConfig(t, kind, fields))) })
	t.Run("http", func(t *testing.T) { check(t, probe(t, httpConfig(t, kind, fields))) })
}

func steps(s ...map[string]any) []map[string]any { return s }

func call(tool string, args map[string]any) map[string]any {
	return map[string]any{"op": "call", "tool": tool, "args": args}
}

var listTools = map[string]any{"op": "list-tools"}

func TestProbeListsAndCallsTools(t *testing.T) {
	fields := map[string]any{"probe": steps(listTools,
		call("add", map[string]any{"a": 2, "b": 3}),
		call("echo", map[string]any{"text": "hello"}),
		call("fail", nil),
	)}
	both(t, serverTools, fields, func(t *testing.T, o outcome) {
		require.Equal(t, lux.EventDone, o.terminal().Type, o.reason())

		ready := o.events[0]
		require.Equal(t, lux.EventReady, ready.Type)
		assert.Equal(t, "mcp-probe", ready.Ready.AgentID)
		assert.Equal(t, "1.2.3", ready.Ready.AgentVersion)
		assert.Equal(t, "test-tools", ready.Ready.Detail["serverName"])

		init, err := mcpprobe.LastInit(roundTrip(t, o.events))
		require.NoError(t, err)
		require.NotNil(t, init)
		assert.Equal(t, &mcpprobe.ServerInfo{Name: "test-tools", Version: "1.2.3"}, init.ServerInfo)
		assert.Equal(t, "Call add to add two numbers.", init.Instructions)
		assert.Contains(t, init.Capabilities, "tools")
		assert.NotContains(t, init.Capabilities, "logging")
		assert.NotEmpty(t, init.ProtocolVersion)

		list, err := mcpprobe.LastToolsList(roundTrip(t, o.events))
		require.NoError(t, err)
		require.NotNil(t, list)
		assert.ElementsMatch(t, []string{"add", "args", "echo", "fail", "getenv", "touch"}, list.Names())
		assert.Equal(t, 1, list.Pages)

		calls, results := o.progress(lux.KindToolCall), o.progress(lux.KindToolResult)
		require.Len(t, calls, 3)
		require.Len(t, results, 3)
		for i, c := range calls {
			assert.Equal(t, c.ToolCall.ToolUseID, results[i].ToolResult.ToolUseID, "call %d and its result share an id", i)
			assert.Equal(t, c.ToolCall.Name, results[i].ToolResult.Name)
			require.NotNil(t, results[i].ToolResult.DurationMs)
			assert.GreaterOrEqual(t, *results[i].ToolResult.DurationMs, 0.0)
		}
		assert.Equal(t, map[string]any{"a": 2.0, "b": 3.0}, generic(t, calls[0].ToolCall.Input))
		add := results[0].ToolResult
		assert.False(t, add.IsError)
		assert.Equal(t, map[string]any{"sum": 5.0}, add.StructuredContent)
		assert.JSONEq(t, `{"sum":5}`, add.Text)
		echo := results[1].ToolResult
		assert.Equal(t, "hello", echo.Text)
		assert.Equal(t, []any{map[string]any{"type": "text", "text": "hello"}}, echo.Content)
		fail := results[2].ToolResult
		assert.True(t, fail.IsError, "a tool's isError is a result, not a failed run")
		assert.Contains(t, fail.Text, "the widget is broken")

		assert.Equal(t, record.SummarizeTools(o.events), record.ToolOutcomes{Reported: 3, Total: 3, Succeeded: 2, Failed: 1})
		sum := generic(t, o.terminal().Done.Summary).(map[string]any)
		assert.Equal(t, 3.0, sum["calls"])
		assert.Equal(t, 1.0, sum["errorResults"])
		assert.Equal(t, 6.0, sum["toolsListed"])
	})
}

func TestProbePaginatedToolList(t *testing.T) {
	both(t, serverPaged, nil, func(t *testing.T, o outcome) {
		require.Equal(t, lux.EventDone, o.terminal().Type, o.reason())
		list, err := mcpprobe.LastToolsList(roundTrip(t, o.events))
		require.NoError(t, err)
		assert.Len(t, list.Tools, 8)
		assert.Equal(t, 4, list.Pages)
	})
}

func TestProbeRepeatedCursorFails(t *testing.T) {
	both(t, serverRepeat, nil, func(t *testing.T, o outcome) {
		assert.Contains(t, o.reason(), `tools/list: the server repeated the cursor "again" after 2 pages`)
	})
}

func TestProbePageCap(t *testing.T) {
	both(t, serverEndless, map[string]any{"maxListPages": 3}, func(t *testing.T, o outcome) {
		assert.Contains(t, o.reason(), "tools/list: more than 3 pages (maxListPages)")
	})
}

func TestProbeUnknownToolIsAProtocolError(t *testing.T) {
	both(t, serverTools, map[string]any{"probe": steps(call("nope", nil))}, func(t *testing.T, o outcome) {
		assert.Contains(t, o.reason(), `mcp-probe: tools/call "nope"`)
		assert.Contains(t, o.reason(), "nope")
		assert.Equal(t, record.ToolOutcomes{Reported: 1, Total: 1, Unresolved: 1}, record.SummarizeTools(o.events))
	})
}

func TestProbeServerCrashMidCall(t *testing.T) {
	o := probe(t, stdioConfig(t, serverCrash, map[string]any{"probe": steps(call("add", map[string]any{"a": 1, "b": 1}), call("crash", nil))}))
	require.Equal(t, lux.EventError, o.terminal().Type)
	assert.Contains(t, o.reason(), `tools/call "crash": the server exited (code=3`)
	assert.Contains(t, o.reason(), "stderr:\npanic: the crash tool crashed")
	assert.Contains(t, o.stderr, "panic: the crash tool crashed", "the server's stderr reaches the run's stderr")
	assert.Len(t, o.progress(lux.KindToolResult), 1, "the result before the crash is kept")
}

func TestProbeServerHangsAtInitialize(t *testing.T) {
	// The server never answers, and the startup timeout is on the test's
	// clock: it passes once the server has written to stderr, however
	// slow the machine.
	o := probeDriven(t, stdioConfig(t, serverHang, map[string]any{"startupTimeout": "200ms"}), func(d *driving) {
		if d.until("the server's stderr line", func() bool { return strings.Contains(d.stderr.String(), "hang: starting") }) && d.armed(1) {
			d.advance(200 * time.Millisecond)
		}
	})
	require.Len(t, o.events, 1, "no ready: the server never became ready")
	assert.True(t, o.advanced, "the run ended only once the test's clock passed the startup timeout")
	assert.Equal(t, lux.ExitError, o.terminal().Error.ExitReason)
	assert.Contains(t, o.reason(), "mcp-probe: initialize: no answer within 200ms")
	assert.Contains(t, o.reason(), "stderr:\nhang: starting, never answering", "the reason quotes what stderr held by then")
	assert.Contains(t, o.stderr, "hang: starting, never answering")
}

func TestProbeJunkOnStdout(t *testing.T) {
	o := probe(t, stdioConfig(t, serverJunk, nil))
	assert.Contains(t, o.reason(), "mcp-probe: initialize: cannot read the server's messages: invalid character")
}

func TestProbeStepTimeout(t *testing.T) {
	// The tool never answers by itself, and the step timeout is on the
	// test's clock: the startup timeout is the first timer, the step's
	// the second.
	fields := map[string]any{"stepTimeout": "200ms", "probe": steps(call("slow", nil))}
	drive := func(d *driving) {
		if d.armed(2) {
			d.advance(200 * time.Millisecond)
		}
	}
	check := func(t *testing.T, o outcome) {
		assert.True(t, o.advanced, "the run ended only once the test's clock passed the step timeout")
		assert.Contains(t, o.reason(), `tools/call "slow": no answer within 200ms`)
	}
	t.Run("stdio", func(t *testing.T) { check(t, probeDriven(t, stdioConfig(t, serverSlowTool, fields), drive)) })
	t.Run("http", func(t *testing.T) { check(t, probeDriven(t, httpConfig(t, serverSlowTool, fields), drive)) })
}

func TestProbeQuiesceStopsTheServer(t *testing.T) {
	cfg, err := mcpprobe.Plugin().Parse(stdioConfig(t, serverSlowTool, map[string]any{"probe": steps(call("slow", nil))}))
	require.NoError(t, err)
	ws := t.TempDir()
	ctx := t.Context()
	// On a clock that never moves: the step timeout cannot end the call.
	s, err := cfg.Start(clock.With(ctx, &clock.Manual{}), lux.StartInfo{RunDir: t.TempDir(), Workspace: ws, Stderr: &bytes.Buffer{}})
	require.NoError(t, err)
	defer s.Close()
	for {
		ev, err := s.Next(ctx)
		require.NoError(t, err)
		if ev.Type == lux.EventProgress && ev.Progress.Kind == lux.KindToolCall {
			break // the call is in flight and will never end by itself
		}
	}
	pid, err := os.ReadFile(filepath.Join(ws, "server.pid"))
	require.NoError(t, err)
	n, err := strconv.Atoi(string(pid))
	require.NoError(t, err)
	require.NoError(t, s.Quiesce(ctx))
	assert.ErrorIs(t, syscall.Kill(n, 0), syscall.ESRCH, "the server is gone once Quiesce returns")
	require.NoError(t, s.Quiesce(ctx), "Quiesce is safe to call again")
}

func TestProbeServerEnvironment(t *testing.T) {
	t.Setenv("LUX_PROBE_SECRET", "s3cret")
	t.Setenv("LUX_PROBE_OTHER", "not passed on")
	o := probe(t, stdioConfig(t, serverTools, map[string]any{
		"env":        map[string]string{"LUX_MCP_TEST_SERVER": serverTools, "WHERE": "${RUN_DIR}|${ARTIFACTS_DIR}"},
		"inheritEnv": []string{"LUX_PROBE_SECRET", "LUX_PROBE_MISSING"},
		"probe": steps(
			call("getenv", map[string]any{"text": "LUX_PROBE_SECRET"}),
			call("getenv", map[string]any{"text": "LUX_PROBE_OTHER"}),
			call("getenv", map[string]any{"text": "PATH"}),
			call("getenv", map[string]any{"text": "WHERE"}),
			call("touch", nil),
		),
	}))
	require.Equal(t, lux.EventDone, o.terminal().Type, o.reason())
	var got []string
	for _, r := range o.progress(lux.KindToolResult) {
		got = append(got, r.ToolResult.Text)
	}
	require.Len(t, got, 5)
	assert.Equal(t, "s3cret", got[0])
	assert.Equal(t, "<unset>", got[1])
	assert.Equal(t, "/usr/local/bin:/usr/bin:/bin", got[2])
	where := strings.Split(got[3], "|")
	require.Len(t, where, 2)
	assert.NotContains(t, where[0], "${")
	assert.Equal(t, o.workspace, where[1])
	var paths []string
	for _, a := range o.artifacts {
		paths = append(paths, a.Path)
	}
	assert.True(t, slices.Contains(paths, "touched.txt"), "the server runs in the workspace, and Collect returns what it wrote: %v", paths)
}

// With inheritEnv: true the server gets the whole host environment, with
// env still set over it.
func TestProbeServerInheritsWholeEnvironment(t *testing.T) {
	t.Setenv("LUX_PROBE_OTHER", "passed on")
	t.Setenv("LUX_PROBE_SET", "host")
	o := probe(t, stdioConfig(t, serverTools, map[string]any{
		"env":        map[string]string{"LUX_MCP_TEST_SERVER": serverTools, "LUX_PROBE_SET": "env"},
		"inheritEnv": true,
		"probe": steps(
			call("getenv", map[string]any{"text": "LUX_PROBE_OTHER"}),
			call("getenv", map[string]any{"text": "LUX_PROBE_SET"}),
			call("getenv", map[string]any{"text": "PATH"}),
		),
	}))
	require.Equal(t, lux.EventDone, o.terminal().Type, o.reason())
	var got []string
	for _, r := range o.progress(lux.KindToolResult) {
		got = append(got, r.ToolResult.Text)
	}
	assert.Equal(t, []string{"passed on", "env", os.Getenv("PATH")}, got)
}

func TestProbeHTTPHeaders(t *testing.T) {
	t.Setenv("LUX_PROBE_TOKEN", "Bearer t0k3n")
	srv := newServer(serverTools, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0k3n" || r.Header.Get("X-Tenant") != "acme" {
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	raw := func(headers map[string]any) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"url": ts.URL, "headers": map[string]string{"X-Tenant": "acme"}, "headersFromEnv": headers})
		return b
	}
	o := probe(t, raw(map[string]any{"Authorization": "LUX_PROBE_TOKEN"}))
	assert.Equal(t, lux.EventDone, o.terminal().Type, o.reason())

	o = probe(t, raw(nil))
	assert.Contains(t, o.reason(), "mcp-probe: initialize:")
	assert.Contains(t, o.reason(), "Unauthorized")
}

func TestProbeHTTPServerDown(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL
	ts.Close()
	o := probe(t, json.RawMessage(`{"url": "`+url+`"}`))
	assert.Equal(t, lux.EventError, o.terminal().Type)
	assert.Contains(t, o.reason(), "mcp-probe: initialize:")
}

func TestStartFailsForAMissingCommand(t *testing.T) {
	cfg, err := mcpprobe.Plugin().Parse(json.RawMessage(`{"command": "./no-such-server"}`))
	require.NoError(t, err)
	_, err = cfg.Start(t.Context(), lux.StartInfo{Workspace: t.TempDir(), Stderr: &bytes.Buffer{}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mcp-probe:")
	assert.Contains(t, err.Error(), "no-such-server")
}

// roundTrip writes events as a record does and reads them back, so the
// helpers are tested on what assertions see.
func roundTrip(t *testing.T, events []lux.Event) []lux.Event {
	t.Helper()
	out := make([]lux.Event, len(events))
	for i, e := range events {
		b, err := json.Marshal(e)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &out[i]))
	}
	return out
}

func generic(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

func TestProbeServerExitsAtStart(t *testing.T) {
	o := probe(t, json.RawMessage(`{"command": "/bin/sh", "args": ["-c", "echo 'fatal: no config' >&2; exit 4"]}`))
	require.Len(t, o.events, 1)
	assert.Contains(t, o.reason(), "mcp-probe: initialize: the server exited (code=4")
	assert.Contains(t, o.reason(), "stderr:\nfatal: no config")
}

func TestProbeCommandRelativeToTheCaseFile(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	caseDir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(caseDir, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(caseDir, "bin", "server"), []byte("#!/bin/sh\nexec '"+exe+"' \"$@\"\n"), 0o755))
	cfg, err := mcpprobe.Plugin().Parse(json.RawMessage(`{"command": "./bin/server", "env": {"LUX_MCP_TEST_SERVER": "tools"}}`))
	require.NoError(t, err)
	s, err := cfg.Start(clock.With(t.Context(), &clock.Manual{}), lux.StartInfo{RunDir: t.TempDir(), Workspace: t.TempDir(), CaseDir: caseDir, Stderr: &bytes.Buffer{}})
	require.NoError(t, err, "./bin/server is found beside the case file, not in the harness's directory")
	defer s.Close()
	ev, err := s.Next(t.Context())
	require.NoError(t, err)
	assert.Equal(t, lux.EventReady, ev.Type, "%+v", ev.Error)
}

func TestProbeMessageOverTheCap(t *testing.T) {
	o := probe(t, stdioConfig(t, serverTools, map[string]any{"maxMessageBytes": 64}))
	require.Equal(t, lux.EventError, o.terminal().Type)
	assert.Contains(t, o.reason(), "mcp-probe: initialize: cannot read the server's messages:")
	assert.Contains(t, o.reason(), "over maxMessageBytes, 64")
}
