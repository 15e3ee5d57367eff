package codex_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/codex"
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

// liveMembers lists the processes of group pgid that have not ended
// (zombies waiting for their reaper have ended), from /proc.
func liveMembers(t *testing.T, pgid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var live []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// "pid (comm) state ppid pgrp ...": comm may hold spaces.
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 3 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(fields[2]); g == pgid {
			live = append(live, pid)
		}
	}
	return live
}

// assertGroupGone checks that no process is left in the process group
// pgid. Quiesce returns once the leader is reaped and the group has been
// sent SIGKILL; the other members end a moment later, so they are waited
// for, a minute at most.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		live := liveMembers(t, pgid)
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("process group %d still has members %v", pgid, live)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// idleExpiry reports whether ev is the error of an idle clock that
// expired, before or after ready.
func idleExpiry(ev lux.Event) bool {
	return ev.Type == lux.EventError && (ev.Error.ExitReason == lux.ExitIdleTimeout ||
		strings.HasPrefix(ev.Error.Reason, "agent never became ready: "))
}

// TestIdleTimeoutStopsTheTree: a model that stalls leaves the CLI silent;
// the idle timeout ends the run and the CLI's whole process tree is gone.
// The CLI takes a second or two to start, longer on a loaded machine: one
// that did not start within the idle timeout is tried again with a longer
// one.
func TestIdleTimeoutStopsTheTree(t *testing.T) {
	findCodex(t)
	t.Parallel()
	for _, mode := range []string{"exec", "app-server"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			periods := []string{"8s", "30s"}
			for i, idle := range periods {
				last, pid := stall(t, mode, idle)
				if i < len(periods)-1 && last.Type == lux.EventError && strings.HasPrefix(last.Error.Reason, "agent never became ready: ") {
					t.Logf("the CLI did not start within %s; trying a longer idle timeout", idle)
					continue
				}
				require.Equal(t, lux.EventError, last.Type)
				assert.Equal(t, lux.ExitIdleTimeout, last.Error.ExitReason)
				assert.Equal(t, "no event for "+idle, last.Error.Reason)
				assertGroupGone(t, pid)
				return
			}
		})
	}
}

// stall runs the CLI in mode against a model that stalls, with the idle
// timeout idle, and returns the terminal event and the CLI's pid, once the
// session is quiesced.
func stall(t *testing.T, mode, idle string) (lux.Event, int) {
	t.Helper()
	srv := modeltest.Start(t, modeltest.Script{{Text: "never sent", Fail: &modeltest.Failure{Stall: true, After: 1}}})
	c := parse(t, driverConfig(t, srv, map[string]any{"mode": mode, "idleTimeout": idle}))
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	dir := t.TempDir()
	ws := filepath.Join(dir, "artifacts")
	require.NoError(t, os.MkdirAll(ws, 0o755))
	s, err := c.Start(ctx, lux.StartInfo{Prompt: "hang", RunDir: dir, Workspace: ws, Stderr: &lockedBuffer{}})
	require.NoError(t, err)
	defer s.Close()
	pid := pidOf(t, s)
	var last lux.Event
	for !last.Terminal() {
		last, err = s.Next(ctx)
		require.NoError(t, err)
	}
	require.NoError(t, s.Quiesce(ctx))
	return last, pid
}

// TestUnreachableProvider: the CLI retries a provider it cannot reach
// without end, whatever its retry settings; the run ends once it has done
// nothing else for the idle timeout. The CLI's notices come 5s, 10s, 20s,
// 40s... apart. An idle timeout of 12.5s is longer than the second gap
// (10s) and shorter than the time from the first notice to the third
// (15s), so only the driver's watch on retries can end the run, at the
// third notice. A notice 2.5s late (a loaded machine) may leave the plain
// idle clock to end the run, or the CLI may not start within the idle
// timeout; then 27.5s, between the third gap (20s) and the time to the
// fourth notice (35s), leaves 7.5s either way.
func TestUnreachableProvider(t *testing.T) {
	findCodex(t)
	t.Parallel()
	periods := []string{"12.5s", "27.5s"}
	for i, idle := range periods {
		srv := modeltest.Start(t, nil)
		cfg := driverConfig(t, srv, map[string]any{"idleTimeout": idle})
		cfg["provider"] = map[string]any{"baseURL": "http://" + refusingAddr(t) + "/v1", "requestMaxRetries": 0, "streamMaxRetries": 0}
		run := drive(t, parse(t, cfg), "hello?", nil)

		end := run.terminal()
		require.Equal(t, lux.EventError, end.Type)
		assert.Equal(t, lux.ExitIdleTimeout, end.Error.ExitReason)
		if i < len(periods)-1 && idleExpiry(end) && !strings.Contains(end.Error.Reason, "only retrying") {
			t.Logf("the plain idle clock ended the run (%s); trying a longer idle timeout", end.Error.Reason)
			continue
		}
		assert.Contains(t, end.Error.Reason, "codex made no progress for "+idle+", only retrying: Reconnecting...")
		assert.GreaterOrEqual(t, len(run.ofKind(codex.KindCodexError)), 2)
		return
	}
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
	s, err := c.Start(context.Background(), lux.StartInfo{Prompt: "hang", RunDir: dir, Workspace: ws, Stderr: &lockedBuffer{}})
	require.NoError(t, err)
	defer s.Close()
	pid := pidOf(t, s)

	ctx, cancel := context.WithCancel(context.Background())
	waitCtx, stop := context.WithTimeout(context.Background(), runTimeout)
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
