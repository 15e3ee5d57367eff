package driver_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/internal/clock"
)

// startShell starts script with /bin/sh in dir; it notes every SIGTERM in
// the file signals.
func startShell(t *testing.T, dir, script string) *driver.Process {
	t.Helper()
	p, err := driver.StartProcess(driver.ProcessSpec{
		Path: "/bin/sh", Args: []string{"-c", `trap 'echo TERM >> signals' TERM; ` + script},
		Dir: dir, Env: []string{"PATH=" + driver.DefaultPath},
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Kill() })
	return p
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// waitFile waits for the file name, which the process writes.
func waitFile(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	for !exists(dir, name) {
		select {
		case <-ctx.Done():
			t.Fatalf("%s never appeared", name)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Stop closes stdin and waits, on its context's clock, for the process to
// exit by itself before any signal: a process that saves its state at the
// end of its input keeps it. The manual clock never moves here, so no
// signal can come however long the saving takes.
func TestStopEndsTheInputBeforeAnySignal(t *testing.T) {
	dir := t.TempDir()
	p := startShell(t, dir, `cat >/dev/null; sleep 0.3; echo saved > state`)
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	require.NoError(t, p.Stop(clock.With(ctx, &clock.Manual{}), time.Hour))
	assert.True(t, exists(dir, "state"), "the process saved its state at stdin's end")
	assert.False(t, exists(dir, "signals"), "no signal reached a process that was exiting by itself")
	assert.Equal(t, driver.ExitStatus{Exited: true, Code: 0}, p.Status())
}

// A process that outlives its stdin's end gets SIGTERM once the stdin grace
// has passed, and SIGKILL once the kill grace has passed after that, both
// on the context's clock.
func TestStopEscalatesOnTheClock(t *testing.T) {
	dir := t.TempDir()
	p := startShell(t, dir, `cat >/dev/null; echo > eof; while :; do sleep 0.05; done`)
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	m := &clock.Manual{}
	stopped := make(chan error, 1)
	go func() { stopped <- p.Stop(clock.With(ctx, m), driver.DefaultKillGrace) }()

	require.NoError(t, m.WaitScheduled(ctx, 1), "the stdin grace was never armed")
	waitFile(t, ctx, dir, "eof")
	assert.False(t, exists(dir, "signals"), "no SIGTERM before the stdin grace passed")
	m.Advance(driver.DefaultStdinGrace)

	waitFile(t, ctx, dir, "signals")
	require.NoError(t, m.WaitScheduled(ctx, 2), "the kill grace was never armed")
	select {
	case err := <-stopped:
		t.Fatalf("Stop returned (%v) before the kill grace passed", err)
	default:
	}
	m.Advance(driver.DefaultKillGrace)
	require.NoError(t, <-stopped)
	assert.Equal(t, "SIGKILL", p.Status().Signal)
}

// A second Stop while the first waits for the process to exit gives it a
// stdin grace too (here on a clock that never moves): it never skips
// straight to the signals because stdin is already closed.
func TestConcurrentStopKeepsTheGrace(t *testing.T) {
	dir := t.TempDir()
	p := startShell(t, dir, `cat >/dev/null; sleep 0.3; echo saved > state`)
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	m := &clock.Manual{}
	first := make(chan error, 1)
	go func() { first <- p.Stop(clock.With(ctx, m), time.Hour) }()
	require.NoError(t, m.WaitScheduled(ctx, 1))
	require.NoError(t, p.Stop(clock.With(ctx, m), time.Hour))
	require.NoError(t, <-first)
	assert.True(t, exists(dir, "state"))
	assert.False(t, exists(dir, "signals"))
}
