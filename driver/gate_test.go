package driver_test

import (
	"context"
	"errors"
	"os"
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

// TestProcessReadyComesBeforeTheAgent: a ProcessSpec's Ready is called
// before the agent runs, at each level of the sandbox and without one,
// and its error refuses the start.
func TestProcessReadyComesBeforeTheAgent(t *testing.T) {
	boxes := map[string]*sandbox.Run{"no sandbox": nil}
	for _, level := range []sandbox.Level{sandbox.LevelNone, sandbox.LevelLimits, sandbox.LevelLandlock} {
		if best, _, _ := sandbox.Available(); best.AtLeast(level) {
			dir := t.TempDir()
			boxes[string(level)] = &sandbox.Run{Config: sandbox.Config{Level: level}, Workspace: dir, Scratch: dir}
		}
	}
	for name, box := range boxes {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if box != nil {
				dir = box.Workspace
			}
			marker := dir + "/ran"
			var ranBefore bool
			spec := driver.ProcessSpec{Path: "/bin/sh", Args: []string{"-c", "echo > " + marker}, Dir: dir, Sandbox: box,
				Ready: func() error { _, err := os.Stat(marker); ranBefore = err == nil; return nil }}
			p, err := driver.StartProcessContext(context.Background(), spec)
			require.NoError(t, err)
			<-p.Exited()
			p.CloseOutput()
			assert.False(t, ranBefore, "the agent ran before Ready returned")
			_, err = os.Stat(marker)
			assert.NoError(t, err, "the agent ran after Ready")

			refused := errors.New("not written")
			spec.Ready = func() error { return refused }
			_, err = driver.StartProcessContext(context.Background(), spec)
			require.ErrorIs(t, err, refused)
		})
	}
}
