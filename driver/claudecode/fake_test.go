package claudecode_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/claudecode"
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
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stderr strings.Builder
	ws := t.TempDir()
	s, err := cfg.Start(ctx, lux.StartInfo{Prompt: "hi", RunDir: t.TempDir(), Workspace: ws, Stderr: &stderr})
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
	}
	require.NoError(t, s.Quiesce(ctx))
	return last, pid, stderr.String()
}

const initLine = `{"type":"system","subtype":"init","session_id":"s1","model":"m","claude_code_version":"0.0.0"}`

func TestIdleTimeoutStopsTheProcessTree(t *testing.T) {
	t.Parallel()
	// The CLI starts, then a child it spawned keeps it busy and silent. A
	// CLI that did not start within the idle timeout (a loaded machine) is
	// tried again with a longer one.
	exe := fakeCLI(t, "echo '"+initLine+"'\nsleep 300 &\nwait\n")
	periods := []time.Duration{2 * time.Second, 10 * time.Second}
	for i, idle := range periods {
		last, pid, _ := runFake(t, &claudecode.Config{Command: exe, IdleTimeout: lux.Duration(idle)})
		require.Equal(t, lux.EventError, last.Type)
		if i < len(periods)-1 && strings.HasPrefix(last.Error.Reason, "agent never became ready: ") {
			t.Logf("the CLI did not start within %s; trying a longer idle timeout", idle)
			continue
		}
		assert.Equal(t, lux.ExitIdleTimeout, last.Error.ExitReason, last.Error.Reason)
		assert.Equal(t, "no event for "+idle.String(), last.Error.Reason)
		assertGroupGone(t, pid)
		return
	}
}

func TestExitWithoutResult(t *testing.T) {
	t.Parallel()
	exe := fakeCLI(t, "echo '"+initLine+"'\necho \"error: option '--permission-mode <mode>' argument 'x' is invalid.\" >&2\nexit 1\n")
	last, _, stderr := runFake(t, &claudecode.Config{Command: exe})
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
	last, _, _ := runFake(t, &claudecode.Config{Command: exe})
	require.Equal(t, lux.EventDone, last.Type)
	assert.Nil(t, last.Done.Usage, "no usage was reported")
	require.NotNil(t, last.Done.CostUSD)
	assert.Equal(t, 0.5, *last.Done.CostUSD)
}

// assertGroupGone checks that no process is left in the process group
// pgid. Quiesce returns once the leader is reaped and the group has been
// sent SIGKILL; the other members end a moment later, so they are waited
// for, a minute at most.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		live := liveGroupMembers(t, pgid)
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("the CLI's process group %d outlived the run: %v", pgid, live)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// liveGroupMembers lists the processes of group pgid that have not ended
// (zombies waiting to be reaped count as ended), from /proc.
func liveGroupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
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
