package driver_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/sandbox"
)

type gateValue struct{}

// TestStartSessionPassesTheGate: the sandbox's Gate gets StartSession's
// context; the session starts once it returns, and a Gate's error is the
// start's.
func TestStartSessionPassesTheGate(t *testing.T) {
	dir := t.TempDir()
	var got any
	box := &sandbox.Run{Config: sandbox.Config{Level: sandbox.LevelNone}, Workspace: dir, Scratch: dir,
		Gate: func(ctx context.Context) error { got = ctx.Value(gateValue{}); return nil }}
	ctx := context.WithValue(sandbox.WithRun(context.Background(), box), gateValue{}, "session's")
	s, err := driver.StartSession(ctx, driver.SessionOptions{Process: fakeSpec(t, "say ready", "say done"), Protocol: textProtocol{}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	assert.Equal(t, "session's", got)
	assert.Equal(t, []string{"ready fake", "done"}, drive(t, s))

	refused := errors.New("no slot")
	box = &sandbox.Run{Config: sandbox.Config{Level: sandbox.LevelNone}, Workspace: dir, Scratch: dir,
		Gate: func(context.Context) error { return refused }}
	_, err = driver.StartSession(sandbox.WithRun(context.Background(), box), driver.SessionOptions{Process: fakeSpec(t, "say done"), Protocol: textProtocol{}})
	require.ErrorIs(t, err, refused)
}
