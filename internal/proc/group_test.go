package proc_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/internal/proc"
)

// ended waits for process pid to end, by proc.WaitEnded; the two minutes
// are a safety net that fails the test loudly, not a measurement.
func ended(t *testing.T, pid int, msg string) {
	t.Helper()
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	if err := proc.WaitEnded(ctx, pid); err != nil {
		t.Fatalf("%s (pid %d): %v", msg, pid, err)
	}
}

func TestStopKillsGroupWhenLeaderIgnoresTerm(t *testing.T) {
	// The leader ignores SIGTERM and waits on a grandchild that ignores it
	// too; it prints the grandchild's pid once the trap is set.
	cmd := exec.Command("/bin/sh", "-c", `trap '' TERM; (trap '' TERM; exec sleep 300 >/dev/null) & echo $!; wait`)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	cmd.Stdout = w
	g, err := proc.Start(cmd)
	w.Close()
	require.NoError(t, err)
	line, err := bufio.NewReader(r).ReadString('\n')
	require.NoError(t, err)
	grandchild, err := strconv.Atoi(strings.TrimSpace(line))
	require.NoError(t, err, "leader printed %q", line)
	require.True(t, proc.Alive(grandchild))

	require.NoError(t, g.Stop(context.Background(), 50*time.Millisecond))
	assert.Equal(t, "SIGKILL", g.Status().Signal)
	ended(t, grandchild, "grandchild survived Stop")
	// Stopping again is harmless.
	require.NoError(t, g.Stop(context.Background(), time.Millisecond))
}

func TestStopAfterLeaderExitedKillsLeftovers(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", `sleep 60 >/dev/null 2>&1 & echo $!`)
	// A pipe of our own, not cmd.StdoutPipe: Start waits for the leader in
	// the background, and Wait closes a StdoutPipe as soon as the leader
	// exits, possibly before the pid has been read from it.
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	cmd.Stdout = w
	g, err := proc.Start(cmd)
	w.Close()
	require.NoError(t, err)
	out, err := io.ReadAll(r) // end of file once the leader exits
	require.NoError(t, err)
	grandchild, err := strconv.Atoi(strings.TrimSpace(string(out)))
	require.NoError(t, err, "output %q", out)
	<-g.Exited()
	assert.Equal(t, proc.Status{Exited: true, Code: 0}, g.Status())
	require.True(t, proc.Alive(grandchild), "the grandchild outlives its leader until the group is stopped")

	require.NoError(t, g.Stop(context.Background(), time.Second))
	ended(t, grandchild, "grandchild survived Stop")
}

func TestStatusString(t *testing.T) {
	assert.Equal(t, "code=3, signal=none", proc.Status{Exited: true, Code: 3}.String())
	assert.Equal(t, "code=-1, signal=SIGKILL", proc.Status{Code: -1, Signal: "SIGKILL"}.String())
}
