package proc_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/internal/clock"
	"github.com/luxeval/lux/internal/ctxtest"
	"github.com/luxeval/lux/internal/proc"
)

func sh(script string, args ...string) proc.Spec {
	return proc.Spec{Path: "/bin/sh", Args: append([]string{"-c", script, "sh"}, args...)}
}

func TestRun(t *testing.T) {
	t.Setenv("LUX_PROC_TEST_SECRET", "host-only")
	tests := []struct {
		name  string
		spec  proc.Spec
		check func(t *testing.T, r proc.Result)
	}{
		{
			name: "exit code and both streams",
			spec: sh(`echo out; echo err >&2; exit 3`),
			check: func(t *testing.T, r proc.Result) {
				assert.Equal(t, proc.Status{Exited: true, Code: 3}, r.Status)
				assert.Equal(t, "out\n", string(r.Stdout))
				assert.Equal(t, "err\n", string(r.Stderr))
				assert.False(t, r.TimedOut)
			},
		},
		{
			name: "input on stdin",
			spec: func() proc.Spec { s := sh(`cat`); s.Input = []byte("hello\n"); return s }(),
			check: func(t *testing.T, r proc.Result) {
				assert.Equal(t, "hello\n", string(r.Stdout))
				assert.Equal(t, 0, r.Code)
			},
		},
		{
			name:  "no input reads end of file",
			spec:  sh(`cat; echo eof`),
			check: func(t *testing.T, r proc.Result) { assert.Equal(t, "eof\n", string(r.Stdout)) },
		},
		{
			name: "output capped",
			spec: func() proc.Spec {
				s := sh(`i=0; while [ $i -lt 100 ]; do echo 0123456789; echo e >&2; i=$((i+1)); done`)
				s.MaxOutput = 25
				return s
			}(),
			check: func(t *testing.T, r proc.Result) {
				assert.Equal(t, "0123456789\n0123456789\n012", string(r.Stdout))
				assert.True(t, r.StdoutTruncated)
				assert.Len(t, r.Stderr, 25)
				assert.True(t, r.StderrTruncated)
				assert.Equal(t, 0, r.Code)
			},
		},
		{
			name: "minimal environment by default",
			spec: sh(`echo "path=$PATH secret=$LUX_PROC_TEST_SECRET"`),
			check: func(t *testing.T, r proc.Result) {
				assert.Equal(t, "path="+proc.DefaultPath+" secret=\n", string(r.Stdout))
			},
		},
		{
			name:  "explicit environment",
			spec:  func() proc.Spec { s := sh(`echo "$A"`); s.Env = []string{"A=b"}; return s }(),
			check: func(t *testing.T, r proc.Result) { assert.Equal(t, "b\n", string(r.Stdout)) },
		},
		{
			name:  "working directory",
			spec:  func() proc.Spec { s := sh(`pwd`); s.Dir = "/"; return s }(),
			check: func(t *testing.T, r proc.Result) { assert.Equal(t, "/\n", string(r.Stdout)) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := proc.Run(context.Background(), tt.spec)
			require.NoError(t, err)
			tt.check(t, r)
		})
	}
}

func TestRunKillsBackgroundChildHoldingOutput(t *testing.T) {
	// The leader exits at once; its background child keeps stdout open.
	r, err := proc.Run(context.Background(), sh(`sleep 60 & echo $!`))
	require.NoError(t, err)
	assert.Equal(t, 0, r.Code)
	pid, err := strconv.Atoi(strings.TrimSpace(string(r.Stdout)))
	require.NoError(t, err)
	ended(t, pid, "background child survived Run")
}

func TestRunCancelled(t *testing.T) {
	// Cancelled once Run waits on ctx, with the command running.
	ctx, cancel := ctxtest.CancelOnWait(context.Background())
	defer cancel()
	r, err := proc.Run(ctx, sh(`sleep 60`))
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, "SIGTERM", r.Signal)
}

func TestRunStartFailure(t *testing.T) {
	_, err := proc.Run(context.Background(), proc.Spec{Path: "/nonexistent/lux-no-such-program"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "proc: start /nonexistent/lux-no-such-program")
}

func TestAlive(t *testing.T) {
	assert.False(t, proc.Alive(0))
	r, err := proc.Run(context.Background(), sh(`echo $$`))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(r.Stdout)))
	require.NoError(t, err)
	assert.False(t, proc.Alive(pid), "a reaped process is not alive")
}

// The timeout stops the whole group with SIGTERM, then with SIGKILL what
// ignores SIGTERM. The timeout and the grace run on a manual clock,
// advanced once the script says (through a FIFO) that it has done what the
// test checks (written its output, set its trap): however slow the machine
// is to start the shell, the timeout cannot come first.
func TestRunTimeoutStopsTheGroup(t *testing.T) {
	tests := []struct {
		name, script   string
		signal, stdout string
	}{
		{"SIGTERM", `echo started; echo > "$1"; sleep 60`, "SIGTERM", "started\n"},
		{"SIGKILL for what ignores SIGTERM", `trap '' TERM; echo > "$1"; sleep 60`, "SIGKILL", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := ctxtest.Safety(t)
			defer cancel()
			reached := filepath.Join(t.TempDir(), "reached")
			require.NoError(t, syscall.Mkfifo(reached, 0o600))
			spec := sh(tt.script, reached)
			spec.Timeout, spec.Grace = time.Hour, time.Hour
			m := &clock.Manual{}
			ran := make(chan proc.Result, 1)
			go func() {
				r, err := proc.Run(clock.With(ctx, m), spec)
				assert.NoError(t, err)
				ran <- r
			}()
			// Opening the FIFO waits for the script to open it too.
			read := make(chan error, 1)
			go func() { _, err := os.ReadFile(reached); read <- err }()
			select {
			case err := <-read:
				require.NoError(t, err)
			case <-ctx.Done():
				t.Fatal("the script never reached the FIFO")
			}
			require.NoError(t, m.WaitScheduled(ctx, 1), "the timeout was never armed")
			m.Advance(time.Hour) // the timeout: SIGTERM
			if tt.signal == "SIGKILL" {
				require.NoError(t, m.WaitScheduled(ctx, 2), "the grace was never armed")
				m.Advance(time.Hour) // the grace: SIGKILL
			}
			r := <-ran
			assert.True(t, r.TimedOut)
			assert.Equal(t, tt.signal, r.Signal)
			assert.Equal(t, tt.stdout, string(r.Stdout))
		})
	}
}

// The timeout runs on ctx's clock: a manual one fires it exactly when the
// test advances it.
func TestRunTimeoutOnTheContextClock(t *testing.T) {
	m := &clock.Manual{}
	spec := sh(`exec sleep 300`)
	spec.Timeout = time.Hour
	ran := make(chan proc.Result, 1)
	go func() {
		r, _ := proc.Run(clock.With(context.Background(), m), spec)
		ran <- r
	}()
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	require.NoError(t, m.WaitScheduled(ctx, 1))
	m.Advance(time.Hour - time.Nanosecond)
	m.Advance(time.Nanosecond)
	r := <-ran
	assert.True(t, r.TimedOut)
	assert.Equal(t, "SIGTERM", r.Signal)
}
