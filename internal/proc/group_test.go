package proc_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/internal/proc"
)

// eventually polls cond for up to a minute: a safety net, not a measurement.
func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // a safety net only
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStopKillsGroupWhenLeaderIgnoresTerm(t *testing.T) {
	out, err := exec.Command("mktemp").Output()
	require.NoError(t, err)
	pidFile := strings.TrimSpace(string(out))
	// The leader ignores SIGTERM and waits on a grandchild that ignores it too.
	cmd := exec.Command("/bin/sh", "-c", `trap '' TERM; (trap '' TERM; sleep 60) & echo $! > "$1"; wait`, "sh", pidFile)
	g, err := proc.Start(cmd)
	require.NoError(t, err)
	var grandchild int
	eventually(t, func() bool {
		b, _ := exec.Command("cat", pidFile).Output()
		grandchild, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	}, "grandchild pid never written")
	require.True(t, proc.Alive(grandchild))

	require.NoError(t, g.Stop(context.Background(), 50*time.Millisecond))
	assert.Equal(t, "SIGKILL", g.Status().Signal)
	eventually(t, func() bool { return !proc.Alive(grandchild) }, "grandchild survived Stop")
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
	eventually(t, func() bool { return !proc.Alive(grandchild) }, "grandchild survived Stop")
}

func TestStatusString(t *testing.T) {
	assert.Equal(t, "code=3, signal=none", proc.Status{Exited: true, Code: 3}.String())
	assert.Equal(t, "code=-1, signal=SIGKILL", proc.Status{Code: -1, Signal: "SIGKILL"}.String())
}
