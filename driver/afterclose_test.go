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

// After Close, Next still ends (with the run's end, then io.EOF) and
// Respond and Quiesce return at once: nothing waits for an agent that is
// gone.
func TestSessionUseAfterClose(t *testing.T) {
	s := start(t, driver.SessionOptions{Process: driver.ProcessSpec{Path: "/bin/sh", Args: []string{"-c", "echo ready; echo ask q1 which; sleep 60"}}})
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	ev, err := s.Next(ctx)
	require.NoError(t, err)
	require.Equal(t, lux.EventReady, ev.Type)
	ev, err = s.Next(ctx)
	require.NoError(t, err)
	require.Equal(t, lux.EventInterrupt, ev.Type)
	require.NoError(t, s.Close())

	assert.NoError(t, s.Respond(ctx, lux.Answer{Kind: lux.Ask, ID: "q1", Text: "late"}), "a late answer is dropped")
	ev, err = s.Next(ctx)
	require.NoError(t, err)
	require.Equal(t, lux.EventError, ev.Type)
	assert.Contains(t, ev.Error.Reason, "agent exited before done")
	_, err = s.Next(ctx)
	assert.True(t, errors.Is(err, io.EOF), "%v", err)
	assert.NoError(t, s.Quiesce(ctx))
	assert.NoError(t, s.Close())
}
