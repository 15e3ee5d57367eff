package codex_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/codex"
	"github.com/luxeval/lux/internal/clock"
	"github.com/luxeval/lux/internal/drivertest"
	"github.com/luxeval/lux/internal/proc"
	"github.com/luxeval/lux/modeltest"
)

func TestExecWritesAndRuns(t *testing.T) {
	findCodex(t)
	t.Parallel()
	srv := modeltest.Start(t, modeltest.Script{
		{Thinking: "Write, then check.", Text: "Writing the file.", ToolCalls: []modeltest.ToolCall{
			patch("*** Begin Patch\n*** Add File: hello.txt\n+Hello from the model\n*** End Patch\n"),
		}, Usage: modeltest.Usage{InputTokens: 1000, OutputTokens: 50, ReasoningTokens: 10}},
		{ToolCalls: []modeltest.ToolCall{shell("cat hello.txt && echo ok > b.txt && ln -s /etc/hostname link.txt")},
			Usage: modeltest.Usage{InputTokens: 200, OutputTokens: 30, CacheReadTokens: 1000}},
		{Text: "done", Usage: modeltest.Usage{InputTokens: 300, OutputTokens: 5, CacheReadTokens: 1000}},
	})
	run := drive(t, parse(t, driverConfig(t, srv, nil)), "write hello", nil)

	end := run.terminal()
	require.Equal(t, lux.EventDone, end.Type, "%+v", end.Error)
	assert.Equal(t, "Hello from the model\n", run.file(t, "hello.txt"))
	assert.Equal(t, "ok\n", run.file(t, "b.txt"))
	var paths []string
	for _, a := range run.artifacts {
		paths = append(paths, a.Path)
	}
	assert.Equal(t, []string{"b.txt", "hello.txt"}, paths, "artifacts, the symbolic link not followed")
	results := run.ofKind(lux.KindToolResult)
	require.Len(t, results, 2)
	assert.Equal(t, map[string]any{"status": "completed", "output": "Hello from the model\n", "exitCode": float64(0)},
		roundTrip(t, results[1].ToolResult.Content))
	// Usage as the CLI reported it: input 1000+1200+1300 of which 2000
	// cached, output 85.
	assert.Equal(t, &lux.TokenUsage{Input: 1500, Output: 85, CacheRead: 2000}, end.Done.Usage)
	require.Equal(t, lux.EventReady, run.events[0].Type)
	assert.Equal(t, "0.169.0", run.events[0].Ready.AgentVersion)
	assertHermetic(t, srv)
}

// roundTrip returns v as it reads back from JSON.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// pidOf returns the agent's process id (the leader of its process group).
func pidOf(t *testing.T, s lux.Session) int {
	t.Helper()
	p, ok := s.(interface{ Pid() int })
	require.True(t, ok, "the session exposes its pid")
	return p.Pid()
}

// assertGroupGone checks that no process is left in the process group
// pgid. Quiesce returns once the leader is reaped and the group has been
// sent SIGKILL; the other members end a moment later: each member's end
// is awaited (proc.WaitGroupEnded), a minute at most, a safety net.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	if err := proc.WaitGroupEnded(ctx, pgid); err != nil {
		t.Errorf("process group %d still has members: %v", pgid, err)
	}
}

// TestIdleTimeoutStopsTheTree: a model that stalls leaves the CLI silent;
// the idle timeout ends the run and the CLI's whole process tree is gone.
// The idle clock runs on a manual clock, advanced once the CLI is ready:
// however long the CLI takes to start, it expires only then.
func TestIdleTimeoutStopsTheTree(t *testing.T) {
	findCodex(t)
	t.Parallel()
	for _, mode := range []string{"exec", "app-server"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			last, pid := stall(t, mode, 8*time.Second)
			require.Equal(t, lux.EventError, last.Type)
			assert.Equal(t, lux.ExitIdleTimeout, last.Error.ExitReason)
			assert.Equal(t, "no event for 8s", last.Error.Reason)
			assertGroupGone(t, pid)
		})
	}
}

// stall runs the CLI in mode against a model that stalls, with the idle
// timeout idle on a manual clock advanced by idle once the CLI is ready,
// and returns the terminal event and the CLI's pid, once the session is
// quiesced.
func stall(t *testing.T, mode string, idle time.Duration) (lux.Event, int) {
	t.Helper()
	srv := modeltest.Start(t, modeltest.Script{{Text: "never sent", Fail: &modeltest.Failure{Stall: true, After: 1}}})
	c := parse(t, driverConfig(t, srv, map[string]any{"mode": mode, "idleTimeout": idle.String()}))
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	m := &clock.Manual{}
	dir := t.TempDir()
	ws := filepath.Join(dir, "artifacts")
	require.NoError(t, os.MkdirAll(ws, 0o755))
	s, err := c.Start(clock.With(ctx, m), lux.StartInfo{Prompt: "hang", RunDir: dir, Workspace: ws, Stderr: &drivertest.Buffer{}})
	require.NoError(t, err)
	defer s.Close()
	pid := pidOf(t, s)
	var last lux.Event
	for !last.Terminal() {
		last, err = s.Next(ctx)
		require.NoError(t, err)
		// Every event re-arms the idle clock before it is out, so the
		// clock is advanced a full period after each one: whichever is
		// the last before the CLI hangs, its period runs out.
		if !last.Terminal() {
			m.Advance(idle)
		}
	}
	require.NoError(t, s.Quiesce(ctx))
	return last, pid
}

// TestUnreachableProvider: the CLI retries a provider it cannot reach
// without end, whatever its retry settings; the run ends once it has done
// nothing else for the idle timeout. The CLI's notices come 5s, 10s, 20s,
// 40s... apart. The plain idle clock runs on a manual clock that is never
// advanced, so only the driver's watch on retries can end the run: at the
// first notice more than the idle timeout after the first one, however
// late the notices come.
func TestUnreachableProvider(t *testing.T) {
	findCodex(t)
	t.Parallel()
	srv := modeltest.Start(t, nil)
	cfg := driverConfig(t, srv, map[string]any{"idleTimeout": "12.5s"})
	cfg["provider"] = map[string]any{"baseURL": "http://" + refusingAddr(t) + "/v1", "requestMaxRetries": 0, "streamMaxRetries": 0}
	run := driveCtx(t, clock.With(context.Background(), &clock.Manual{}), parse(t, cfg), "hello?", nil)

	end := run.terminal()
	require.Equal(t, lux.EventError, end.Type)
	assert.Equal(t, lux.ExitIdleTimeout, end.Error.ExitReason)
	assert.Contains(t, end.Error.Reason, "codex made no progress for 12.5s, only retrying: Reconnecting...")
	assert.GreaterOrEqual(t, len(run.ofKind(codex.KindCodexError)), 2)
}

// refusingAddr returns a loopback address that refuses connections for
// the rest of the test: a socket bound to it that never listens holds the
// port, which a listener that is closed again would leave free for
// another test's server to take.
func refusingAddr(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Close(fd) })
	syscall.CloseOnExec(fd)
	require.NoError(t, syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	sa, err := syscall.Getsockname(fd)
	require.NoError(t, err)
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
}

// TestCancelStopsTheTree: a cancelled context returns from Next, and
// Quiesce stops the CLI's whole process tree.
func TestCancelStopsTheTree(t *testing.T) {
	findCodex(t)
	t.Parallel()
	srv := modeltest.Start(t, modeltest.Script{{Text: "never sent", Fail: &modeltest.Failure{Stall: true}}})
	c := parse(t, driverConfig(t, srv, map[string]any{"mode": "app-server"}))
	dir := t.TempDir()
	ws := filepath.Join(dir, "artifacts")
	require.NoError(t, os.MkdirAll(ws, 0o755))
	s, err := c.Start(context.Background(), lux.StartInfo{Prompt: "hang", RunDir: dir, Workspace: ws, Stderr: &drivertest.Buffer{}})
	require.NoError(t, err)
	defer s.Close()
	pid := pidOf(t, s)

	ctx, cancel := context.WithCancel(context.Background())
	waitCtx, stop := ctxtest.Safety(t)
	defer stop()
	_, err = srv.WaitRequests(waitCtx, 1) // the CLI is waiting on the model
	require.NoError(t, err)
	cancel()
	_, err = s.Next(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	require.NoError(t, s.Quiesce(context.Background()))
	assertGroupGone(t, pid)
}

// TestAppServerUsage: app-server reports usage per model call and in
// total, as the CLI counted it.
func TestAppServerUsage(t *testing.T) {
	findCodex(t)
	t.Parallel()
	srv := modeltest.Start(t, modeltest.Script{
		{ToolCalls: []modeltest.ToolCall{shell("true")}, Usage: modeltest.Usage{InputTokens: 700, OutputTokens: 20, CacheReadTokens: 300}},
		{Text: "ok", Usage: modeltest.Usage{InputTokens: 100, OutputTokens: 7, CacheReadTokens: 1000}},
	})
	run := drive(t, parse(t, driverConfig(t, srv, map[string]any{"mode": "app-server"})), "go", nil)

	end := run.terminal()
	require.Equal(t, lux.EventDone, end.Type, "%+v", end.Error)
	assert.Equal(t, &lux.TokenUsage{Input: 800, Output: 27, CacheRead: 1300}, end.Done.Usage)
	var calls []lux.TokenUsage
	for _, p := range run.ofKind(lux.KindUsage) {
		calls = append(calls, p.Usage.TokenUsage)
	}
	assert.Equal(t, []lux.TokenUsage{{Input: 700, Output: 20, CacheRead: 300}, {Input: 100, Output: 7, CacheRead: 1000}}, calls)
	home := filepath.Join(run.runDir, codex.HomeDir)
	entries, err := os.ReadDir(home)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only config.toml is kept")
	assert.Equal(t, "config.toml", entries[0].Name())
	assertHermetic(t, srv)
}
