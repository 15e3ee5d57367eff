package driver_test

import (
	"errors"
	"io"
	"testing"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

// An answer that cannot be delivered because the agent closed its stdin
// ends the run with an error event saying so, rather than failing Respond.
func TestSessionRespondToAgentThatClosedStdin(t *testing.T) {
	s := start(t, driver.SessionOptions{
		Process: driver.ProcessSpec{Path: "/bin/sh", Args: []string{"-c", "echo ready; exec <&-; echo ask q1 which; sleep 60"}},
	})
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	var got []string
	for {
		ev, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		got = append(got, describe(ev))
		if ev.Type == lux.EventInterrupt {
			require.NoError(t, s.Respond(ctx, lux.Answer{Kind: lux.Ask, ID: "q1", Text: "yes"}))
		}
	}
	require.Len(t, got, 3)
	assert.Equal(t, []string{"ready fake", "interrupt ask q1"}, got[:2])
	assert.Contains(t, got[2], "error error: cannot deliver the answer to ask \"q1\"")
	select {
	case <-s.Exited():
	case <-ctxtest.SafetyNet(t): // a safety net only
		t.Fatal("the agent was not stopped")
	}
}

// An answer to an agent that has exited leaves the explanation to the
// exit: the run's error names the exit status and the end of stderr.
func TestSessionRespondToExitedAgent(t *testing.T) {
	s := start(t, driver.SessionOptions{
		Process:   driver.ProcessSpec{Path: "/bin/sh", Args: []string{"-c", "echo ready; echo ask q1 which; echo boom >&2; exit 3"}},
		ExitDrain: safety, // time enough for the stderr copy to catch up with the exit
	})
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	ev, err := s.Next(ctx)
	require.NoError(t, err)
	require.Equal(t, lux.EventReady, ev.Type)
	ev, err = s.Next(ctx)
	require.NoError(t, err)
	require.Equal(t, lux.EventInterrupt, ev.Type)
	<-s.Exited()
	require.NoError(t, s.Respond(ctx, lux.Answer{Kind: lux.Ask, ID: "q1", Text: "yes"}))
	ev, err = s.Next(ctx)
	require.NoError(t, err)
	require.Equal(t, lux.EventError, ev.Type)
	assert.Contains(t, ev.Error.Reason, "agent exited before done (code=3, signal=none)")
	assert.Contains(t, ev.Error.Reason, "boom")
}
