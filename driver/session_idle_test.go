package driver_test

import (
	"context"
	"testing"
	"time"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/internal/clock"
)

// The session's idle clock runs on a manual clock here: it expires when
// the test advances it, never because the machine was slow.

// startManual starts a session whose idle clock and time limit run on a
// manual clock, and returns both.
func startManual(t *testing.T, opts driver.SessionOptions) (*driver.Session, *clock.Manual) {
	t.Helper()
	m := &clock.Manual{}
	if opts.Protocol == nil {
		opts.Protocol = textProtocol{}
	}
	s, err := driver.StartSession(clock.With(context.Background(), m), opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s, m
}

// next returns the session's next event, described.
func next(t *testing.T, s *driver.Session) string {
	t.Helper()
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	ev, err := s.Next(ctx)
	require.NoError(t, err)
	return describe(ev)
}

func TestSessionIdleExpiry(t *testing.T) {
	const idle = 90 * time.Second
	s, m := startManual(t, driver.SessionOptions{IdleTimeout: idle, Process: fakeSpec(t, "say ready", "say progress p", "hang")})
	assert.Equal(t, "ready fake", next(t, s))
	assert.Equal(t, "progress p", next(t, s)) // the clock was re-armed before the event was queued
	m.Advance(idle - time.Nanosecond)
	assert.Equal(t, 1, m.Pending(), "expired before its period")
	m.Advance(time.Nanosecond)
	assert.Equal(t, "error idle-timeout: no event for 1m30s", next(t, s))
	select {
	case <-s.Exited():
	case <-ctxtest.SafetyNet(t): // a safety net only
		t.Fatal("the agent was not stopped")
	}
}

func TestSessionIdleExpiryBeforeReady(t *testing.T) {
	s, m := startManual(t, driver.SessionOptions{IdleTimeout: time.Minute, Process: fakeSpec(t, "hang")})
	m.Advance(time.Minute)
	assert.Equal(t, "error error: agent never became ready: no event for 1m0s", next(t, s))
}

// An agent that closes its stdout but keeps running is still stopped by
// the idle clock, with its whole group.
func TestSessionClosedStdoutStillIdles(t *testing.T) {
	s, m := startManual(t, driver.SessionOptions{
		Process:     driver.ProcessSpec{Path: "/bin/sh", Args: []string{"-c", "echo ready; exec >&-; trap '' TERM; read _"}},
		IdleTimeout: time.Minute,
	})
	assert.Equal(t, "ready fake", next(t, s))
	m.Advance(time.Minute)
	assert.Equal(t, "error idle-timeout: no event for 1m0s", next(t, s))
	select {
	case <-s.Exited():
	case <-ctxtest.SafetyNet(t): // a safety net only
		t.Fatal("the agent was not stopped")
	}
}

// While an interrupt waits for its answer the idle clock is stopped, for
// as long as the answer takes; the answer re-arms it.
func TestSessionIdleClockPausedWhileAnswerOutstanding(t *testing.T) {
	s, m := startManual(t, driver.SessionOptions{
		IdleTimeout: time.Minute,
		Process:     fakeSpec(t, "say ready", "say ask q1 hi", "expect", "await", "say done"),
	})
	assert.Equal(t, "ready fake", next(t, s))
	assert.Equal(t, "interrupt ask q1", next(t, s))
	assert.Equal(t, 0, m.Pending(), "the idle clock runs while the answer is outstanding")
	m.Advance(time.Hour) // a slow answerer
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	require.NoError(t, s.Respond(ctx, lux.Answer{Kind: lux.Ask, ID: "q1", Text: "ok"}))
	assert.Equal(t, "progress got:answer q1 ok", next(t, s))
	// The agent now waits for a line: a paused clock stays paused through
	// the event just seen, a resumed one was re-armed by it.
	assert.Equal(t, 1, m.Pending(), "the answer did not re-arm the idle clock")
	require.NoError(t, s.Stdin().WriteLine(ctx, []byte("go")))
	assert.Equal(t, "done", next(t, s))
}

// lineProtocol is textProtocol that reports each line it is given on
// lines, once the session has seen it.
type lineProtocol struct {
	textProtocol
	lines chan string
}

func (p lineProtocol) Parse(ctx context.Context, line []byte, stdin *driver.Stdin) ([]lux.Event, error) {
	evs, err := p.textProtocol.Parse(ctx, line, stdin)
	p.lines <- string(line)
	return evs, err
}

// With TouchOnLine a stdout line that is no event re-arms the idle clock;
// without, only events do.
func TestSessionTouchOnLine(t *testing.T) {
	for _, touch := range []bool{true, false} {
		lines := make(chan string, 8)
		s, m := startManual(t, driver.SessionOptions{
			IdleTimeout: time.Minute,
			TouchOnLine: touch,
			Protocol:    lineProtocol{lines: lines},
			Process:     fakeSpec(t, "say ready", "await", "say a log line, not an event", "await", "say done"),
		})
		ctx, cancel := ctxtest.Safety(t)
		defer cancel()
		assert.Equal(t, "ready fake", next(t, s))
		<-lines
		m.Advance(40 * time.Second)
		require.NoError(t, s.Stdin().WriteLine(ctx, []byte("go")))
		select {
		case <-lines: // the log line has been read
		case <-ctx.Done():
			t.Fatal("the log line never came")
		}
		m.Advance(40 * time.Second) // 80s after ready, 40s after the line
		if touch {
			require.NoError(t, s.Stdin().WriteLine(ctx, []byte("go")))
			assert.Equal(t, "done", next(t, s), "the log line did not re-arm the idle clock")
		} else {
			assert.Equal(t, "error idle-timeout: no event for 1m0s", next(t, s), "a log line re-armed the idle clock")
		}
	}
}

// A session's time limit runs from its start, whatever the agent says.
func TestSessionTimeLimit(t *testing.T) {
	s, m := startManual(t, driver.SessionOptions{
		Timeout:     30 * time.Minute,
		IdleTimeout: time.Hour,
		Process:     fakeSpec(t, "say ready", "say progress p", "hang"),
	})
	assert.Equal(t, "ready fake", next(t, s))
	assert.Equal(t, "progress p", next(t, s))
	m.Advance(30*time.Minute - time.Nanosecond)
	assert.Equal(t, 2, m.Pending(), "the time limit passed before its time")
	m.Advance(time.Nanosecond)
	assert.Equal(t, "error timeout: the agent ran longer than its 30m0s time limit", next(t, s))
}
