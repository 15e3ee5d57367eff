package claudecode_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/internal/clock"
	"github.com/luxeval/lux/internal/proc"
)

// These tests run a stand-in for the CLI, a shell script, for what the
// real CLI cannot be made to do on cue.

// fakeCLI writes a shell script standing in for claude and returns its path.
func fakeCLI(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "claude")
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755))
	return p
}

// runFake drives a session of the fake to its terminal event.
func runFake(t *testing.T, cfg *claudecode.Config) (lux.Event, int, string) {
	t.Helper()
	return runFakeClocked(t, cfg, nil, 0)
}

// runFakeClocked is runFake with the session's timers on the manual clock
// m (when not nil), advanced by d once the session is ready.
func runFakeClocked(t *testing.T, cfg *claudecode.Config, m *clock.Manual, d time.Duration) (lux.Event, int, string) {
	t.Helper()
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	var stderr strings.Builder
	ws := t.TempDir()
	start := ctx
	if m != nil {
		start = clock.With(ctx, m)
	}
	s, err := cfg.Start(start, lux.StartInfo{Prompt: "hi", RunDir: t.TempDir(), Workspace: ws, Stderr: &stderr})
	require.NoError(t, err)
	defer s.Close()
	pid := s.(interface{ Pid() int }).Pid()
	var last lux.Event
	for {
		ev, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		last = ev
		if m != nil && ev.Type == lux.EventReady {
			m.Advance(d)
		}
	}
	require.NoError(t, s.Quiesce(ctx))
	return last, pid, stderr.String()
}

const initLine = `{"type":"system","subtype":"init","session_id":"s1","model":"m","claude_code_version":"0.0.0"}`

func TestIdleTimeoutStopsTheProcessTree(t *testing.T) {
	t.Parallel()
	// The CLI starts, then a child it spawned keeps it busy and silent. The
	// idle clock runs on a manual clock, advanced once the CLI is ready.
	exe := fakeCLI(t, "echo '"+initLine+"'\nsleep 300 &\nwait\n")
	idle := 2 * time.Second
	last, pid, _ := runFakeClocked(t, &claudecode.Config{ProcessConfig: driver.ProcessConfig{Command: exe, IdleTimeout: lux.Duration(idle)}}, &clock.Manual{}, idle)
	require.Equal(t, lux.EventError, last.Type)
	assert.Equal(t, lux.ExitIdleTimeout, last.Error.ExitReason, last.Error.Reason)
	assert.Equal(t, "no event for 2s", last.Error.Reason)
	assertGroupGone(t, pid)
}

func TestExitWithoutResult(t *testing.T) {
	t.Parallel()
	exe := fakeCLI(t, "echo '"+initLine+"'\necho \"error: option '--permission-mode <mode>' argument 'x' is invalid.\" >&2\nexit 1\n")
	last, _, stderr := runFake(t, &claudecode.Config{ProcessConfig: driver.ProcessConfig{Command: exe}})
	require.Equal(t, lux.EventError, last.Type)
	assert.Equal(t, lux.ExitError, last.Error.ExitReason)
	assert.Equal(t, "claude exited with code 1: error: option '--permission-mode <mode>' argument 'x' is invalid.", last.Error.Reason)
	assert.Contains(t, stderr, "argument 'x' is invalid", "stderr was not passed on")
}

func TestPromptOnStdin(t *testing.T) {
	t.Parallel()
	// The fake echoes the first stdin line into a file and reports success.
	exe := fakeCLI(t, `read line
printf '%s\n' "$line" > prompt.json
echo '`+initLine+`'
echo '{"type":"result","subtype":"success","is_error":false,"result":"ok","num_turns":1,"total_cost_usd":0.5}'
read rest
`)
	last, _, _ := runFake(t, &claudecode.Config{ProcessConfig: driver.ProcessConfig{Command: exe}})
	require.Equal(t, lux.EventDone, last.Type)
	assert.Nil(t, last.Done.Usage, "no usage was reported")
	require.NotNil(t, last.Done.CostUSD)
	assert.Equal(t, 0.5, *last.Done.CostUSD)
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
		t.Errorf("the CLI's process group %d outlived the run: %v", pgid, err)
	}
}
