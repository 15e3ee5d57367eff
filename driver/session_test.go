package driver_test

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/internal/ctxtest"
	"github.com/luxeval/lux/internal/drivertest"
	"github.com/luxeval/lux/internal/proc"
)

// safety bounds a test that would otherwise hang; no test relies on it.
const safety = 2 * time.Minute

func start(t *testing.T, opts driver.SessionOptions) *driver.Session {
	t.Helper()
	if opts.Protocol == nil {
		opts.Protocol = textProtocol{}
	}
	if opts.KillGrace == 0 {
		opts.KillGrace = 200 * time.Millisecond
	}
	s, err := driver.StartSession(context.Background(), opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// describe renders an event compactly for comparison.
func describe(ev lux.Event) string {
	switch ev.Type {
	case lux.EventReady:
		return "ready " + ev.Ready.AgentID
	case lux.EventProgress:
		return "progress " + ev.Progress.ID
	case lux.EventInterrupt:
		return "interrupt " + string(ev.Interrupt.Kind) + " " + ev.Interrupt.ID
	case lux.EventDone:
		return "done"
	case lux.EventError:
		return "error " + string(ev.Error.ExitReason) + ": " + ev.Error.Reason
	}
	return string(ev.Type)
}

// drive reads events until io.EOF, answering every ask with "yes", and
// returns them described.
func drive(t *testing.T, s *driver.Session) []string {
	t.Helper()
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	var got []string
	for {
		ev, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			return got
		}
		require.NoError(t, err, "events so far: %q", got)
		got = append(got, describe(ev))
		if ev.Type != lux.EventReady {
			assert.False(t, ev.Time.IsZero(), "%s has no time", ev.Type)
		}
		if ev.Type == lux.EventInterrupt {
			require.NoError(t, s.Respond(ctx, lux.Answer{Kind: lux.Ask, ID: ev.Interrupt.ID, Text: "yes"}))
		}
	}
}

func TestSessionEvents(t *testing.T) {
	tests := []struct {
		name   string
		opts   driver.SessionOptions
		script []string
		want   []string
	}{
		{
			name:   "happy path with an answered question",
			script: []string{"say progress early", "say ready", "say this is a log line", "say ask q1 continue?", "expect", "say done"},
			want:   []string{"progress early", "ready fake", "interrupt ask q1", "progress got:answer q1 yes", "done"},
		},
		{
			name:   "everything after the terminal event is dropped",
			script: []string{"say ready", "say done", "say progress late", "say error late", "say ask q9 x"},
			want:   []string{"ready fake", "done"},
		},
		{
			name:   "a second ready is dropped",
			script: []string{"say ready", "say ready", "say done"},
			want:   []string{"ready fake", "done"},
		},
		{
			name:   "the agent's own error is terminal",
			script: []string{"say ready", "say error it broke", "say done"},
			want:   []string{"ready fake", "error error: it broke"},
		},
		{
			name:   "an error before ready is terminal",
			script: []string{"say error no key"},
			want:   []string{"error error: no key"},
		},
		{
			name:   "done before ready",
			script: []string{"say progress p", "say done", "say ready"},
			want:   []string{"progress p", "error error: agent emitted done before ready"},
		},
		{
			name:   "interrupt before ready",
			script: []string{"say ask q1 hi", "hang"},
			want:   []string{"error error: agent emitted interrupt before ready"},
		},
		{
			name:   "interrupts beyond the limit",
			opts:   driver.SessionOptions{MaxInterrupts: 2},
			script: []string{"say ready", "say ask a hi", "expect", "say ask b hi", "expect", "say ask c hi", "hang"},
			want: []string{"ready fake", "interrupt ask a", "progress got:answer a yes", "interrupt ask b",
				"progress got:answer b yes", "error max-interactions: exceeded maxInterrupts (2)"},
		},
		{
			name:   "a parse error ends the run",
			script: []string{"say ready", "say bad", "hang"},
			want:   []string{"ready fake", `error error: cannot parse agent output: bad line "bad"`},
		},
		{
			name:   "oversized line",
			opts:   driver.SessionOptions{MaxLineBytes: 100},
			script: []string{"say ready", "big 100", "big 101", "hang"},
			want:   []string{"ready fake", "error error: stdout line exceeded 100 bytes"},
		},
		{
			name: "exit without a terminal event",
			// Time enough for the stderr copy to catch up with the exit.
			opts:   driver.SessionOptions{ExitDrain: safety},
			script: []string{"say ready", "err first", "err boom", "exit 3"},
			want:   []string{"ready fake", "error error: agent exited before done (code=3, signal=none)\nstderr:\nfirst\nboom"},
		},
		{
			name:   "exit before ready",
			script: []string{"exit 0"},
			want:   []string{"error error: agent exited before ready (code=0, signal=none)"},
		},
		{
			name:   "idle timeout",
			opts:   driver.SessionOptions{IdleTimeout: 100 * time.Millisecond, Ready: &lux.Ready{AgentID: "given"}},
			script: []string{"hang"},
			want:   []string{"ready given", "error idle-timeout: no event for 100ms"},
		},
		{
			name:   "never ready",
			opts:   driver.SessionOptions{IdleTimeout: 100 * time.Millisecond},
			script: []string{"hang"},
			want:   []string{"error error: agent never became ready: no event for 100ms"},
		},
		{
			name:   "ready supplied by the driver",
			opts:   driver.SessionOptions{Ready: &lux.Ready{AgentID: "given"}},
			script: []string{"say progress p", "say done"},
			want:   []string{"ready given", "progress p", "done"},
		},
		{
			name:   "input written to stdin and closed",
			opts:   driver.SessionOptions{Input: []byte("the prompt\n"), CloseStdin: true},
			script: []string{"readall", "say ready", "say done"},
			want:   []string{"progress stdin:the prompt", "ready fake", "done"},
		},
		{
			name: "OnExit decides the terminal event",
			opts: driver.SessionOptions{OnExit: func(st driver.ExitStatus, tail string) *lux.Event {
				if st.Code != 0 {
					return nil
				}
				return &lux.Event{Type: lux.EventDone, Done: &lux.Done{Summary: tail}}
			}},
			script: []string{"say ready", "exit 0"},
			want:   []string{"ready fake", "done"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := tt.opts
			opts.Process = fakeSpec(t, tt.script...)
			s := start(t, opts)
			got := drive(t, s)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			// The agent is stopped once the run has ended.
			select {
			case <-s.Exited():
			case <-ctxtest.SafetyNet(t): // a safety net only
				t.Fatal("agent still running after the terminal event")
			}
		})
	}
}

func TestSessionRespondMismatch(t *testing.T) {
	s := start(t, driver.SessionOptions{Process: fakeSpec(t, "say ready", "say ask q1 hi", "expect", "say done")})
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	for {
		ev, err := s.Next(ctx)
		require.NoError(t, err)
		if ev.Type == lux.EventInterrupt {
			break
		}
	}
	err := s.Respond(ctx, lux.Answer{Kind: lux.Ask, ID: "other", Text: "x"})
	require.ErrorIs(t, err, lux.ErrAnswerMismatch)
	err = s.Respond(ctx, lux.Answer{Kind: lux.Approve, ID: "q1", Approved: true})
	require.ErrorIs(t, err, lux.ErrAnswerMismatch)
	require.NoError(t, s.Respond(ctx, lux.Answer{Kind: lux.Ask, ID: "q1", Text: "right"}))
	ev, err := s.Next(ctx)
	require.NoError(t, err)
	assert.Equal(t, "progress got:answer q1 right", describe(ev))
}

func pidOf(t *testing.T, ev lux.Event) int {
	t.Helper()
	require.Equal(t, lux.EventProgress, ev.Type)
	pid, err := strconv.Atoi(strings.TrimPrefix(ev.Progress.ID, "pid:"))
	require.NoError(t, err, "progress %q", ev.Progress.ID)
	return pid
}

// gone waits for process pid to end, by proc.WaitEnded (no polling); the
// safety net fails the test, it never decides it.
func gone(t *testing.T, pid int, what string) {
	t.Helper()
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	if err := proc.WaitEnded(ctx, pid); err != nil {
		t.Fatalf("%s (pid %d) survived: %v", what, pid, err)
	}
}

func TestSessionQuiesceKillsGrandchild(t *testing.T) {
	// The agent and its background child both ignore SIGTERM.
	s := start(t, driver.SessionOptions{
		KillGrace: 100 * time.Millisecond,
		Process:   fakeSpec(t, "trapterm", "say ready", "spawn", "hang"),
	})
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	ev, err := s.Next(ctx)
	require.NoError(t, err)
	require.Equal(t, lux.EventReady, ev.Type)
	ev, err = s.Next(ctx)
	require.NoError(t, err)
	child := pidOf(t, ev)
	require.True(t, proc.Alive(child))
	leader := s.Pid()

	require.NoError(t, s.Quiesce(ctx))
	assert.False(t, proc.Alive(leader), "agent survived Quiesce")
	gone(t, child, "grandchild")
	assert.Equal(t, "SIGKILL", s.Status().Signal)
	require.NoError(t, s.Quiesce(ctx), "Quiesce twice")
}

func TestSessionGrandchildHoldingStdoutAfterExit(t *testing.T) {
	// The agent exits without done; its child keeps stdout open.
	s := start(t, driver.SessionOptions{Process: fakeSpec(t, "say ready", "spawn", "exit 0")})
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	_, err := s.Next(ctx)
	require.NoError(t, err)
	ev, err := s.Next(ctx)
	require.NoError(t, err)
	child := pidOf(t, ev)
	ev, err = s.Next(ctx)
	require.NoError(t, err)
	assert.Equal(t, "error error: agent exited before done (code=0, signal=none)", describe(ev))
	gone(t, child, "grandchild")
	require.NoError(t, s.Quiesce(ctx))
}

func TestSessionCancelledNext(t *testing.T) {
	s := start(t, driver.SessionOptions{Process: fakeSpec(t, "say ready", "spawn", "hang")})
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	_, err := s.Next(ctx)
	require.NoError(t, err)
	ev, err := s.Next(ctx)
	require.NoError(t, err)
	child := pidOf(t, ev)

	// Cancelled once Next waits on it: the agent hangs, no event is coming.
	cctx, ccancel := ctxtest.CancelOnWait(ctx)
	defer ccancel()
	_, err = s.Next(cctx)
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.Next(cctx)
	require.ErrorIs(t, err, context.Canceled, "an already cancelled ctx")

	require.NoError(t, s.Quiesce(ctx))
	assert.False(t, proc.Alive(s.Pid()))
	gone(t, child, "grandchild")
}

func TestSessionStartFailure(t *testing.T) {
	_, err := driver.StartSession(context.Background(), driver.SessionOptions{
		Protocol: textProtocol{},
		Process:  driver.ProcessSpec{Path: "/nonexistent/agent"},
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "failed to start /nonexistent/agent: ")
	var se *driver.StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "/nonexistent/agent", se.Command)
}

func TestSessionStderr(t *testing.T) {
	var buf drivertest.Buffer
	spec := fakeSpec(t, "err warming up", "say ready", "err more", "say done")
	spec.Stderr = &buf
	// Time enough for the stderr copy to catch up before Quiesce closes it.
	s := start(t, driver.SessionOptions{Process: spec, ExitDrain: safety})
	assert.Equal(t, []string{"ready fake", "done"}, drive(t, s))
	require.NoError(t, s.Quiesce(context.Background()))
	assert.Equal(t, "warming up\nmore\n", buf.String())
	assert.Equal(t, "warming up\nmore\n", s.StderrTail())
}

func TestSessionCollect(t *testing.T) {
	dir := t.TempDir()
	s := start(t, driver.SessionOptions{
		Workspace: dir,
		Process:   fakeSpec(t, "say ready", "say done"),
	})
	drive(t, s)
	require.NoError(t, writeFile(dir, "out.txt", "hello"))
	arts, err := s.Collect(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []lux.Artifact{{Path: "out.txt", Size: 5, SHA256: sha("hello")}}, arts)
}

// blockingProtocol's Parse waits for its context to end.
type blockingProtocol struct {
	textProtocol
	entered chan struct{}
}

func (b blockingProtocol) Parse(ctx context.Context, _ []byte, _ *driver.Stdin) ([]lux.Event, error) {
	close(b.entered)
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestSessionQuiesceCancelsParse(t *testing.T) {
	bp := blockingProtocol{entered: make(chan struct{})}
	s := start(t, driver.SessionOptions{Protocol: bp, Process: fakeSpec(t, "say ready", "hang")})
	select {
	case <-bp.entered:
	case <-ctxtest.SafetyNet(t): // a safety net only
		t.Fatal("Parse never called")
	}
	done := make(chan error, 1)
	go func() { done <- s.Quiesce(context.Background()) }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-ctxtest.SafetyNet(t): // a safety net only
		t.Fatal("Quiesce waited for a blocked Parse")
	}
	ev, err := s.Next(context.Background())
	require.NoError(t, err)
	assert.Equal(t, lux.EventError, ev.Type)
}
