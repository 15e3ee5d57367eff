package mcpprobe_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

func artifactPaths(o outcome) []string {
	var paths []string
	for _, a := range o.artifacts {
		paths = append(paths, a.Path)
	}
	return paths
}

// A server whose initialize answer the SDK refuses is reported by what the
// SDK said, not by the exit that followed once its stdin closed.
func TestProbeBlamesTheRefusedAnswerNotTheExit(t *testing.T) {
	o := probe(t, stdioConfig(t, serverOldProto, nil))
	require.Len(t, o.events, 1)
	assert.Contains(t, o.reason(), `mcp-probe: initialize: unsupported protocol version: "1999-01-01"`)
	assert.NotContains(t, o.reason(), "initialize: the server exited")
}

// The server's stdin closes first and it gets a grace, on the run's
// clock, to exit by itself: a server that saves its state at stdin's end
// keeps it, and gets no signal.
func TestProbeStopClosesStdinAndWaitsBeforeAnySignal(t *testing.T) {
	o := probe(t, stdioConfig(t, serverSaveEOF, nil))
	require.Equal(t, lux.EventDone, o.terminal().Type, o.reason())
	paths := artifactPaths(o)
	assert.Contains(t, paths, "state.txt", "the server saved its state at stdin's end")
	assert.NotContains(t, paths, "sigterm.txt", "no SIGTERM reached a server that was exiting by itself")
}

// A server that outlives its stdin's end gets SIGTERM only once the stdin
// grace has passed on the run's clock, and SIGKILL once the kill grace has
// passed after that.
func TestProbeStopEscalatesOnTheRunsClock(t *testing.T) {
	o := probeDriven(t, stdioConfig(t, serverIgnore, nil), func(d *driving) {
		// Timers: the startup timeout, the list-tools step, then the stop's.
		if !d.armed(3) {
			return
		}
		if d.exists("sigterm.txt") {
			d.t.Errorf("SIGTERM came before the stdin grace passed")
		}
		d.advance(driver.DefaultStdinGrace)
		if !d.until("SIGTERM after the stdin grace", func() bool { return d.exists("sigterm.txt") }) || !d.armed(4) {
			return
		}
		d.advance(driver.DefaultKillGrace)
	})
	require.Equal(t, lux.EventDone, o.terminal().Type, o.reason())
	assert.Contains(t, artifactPaths(o), "sigterm.txt")
	pid, err := os.ReadFile(filepath.Join(o.workspace, "server.pid"))
	require.NoError(t, err)
	n, err := strconv.Atoi(string(pid))
	require.NoError(t, err)
	assert.ErrorIs(t, syscall.Kill(n, 0), syscall.ESRCH, "SIGKILL ended the server that ignored SIGTERM")
}

// A number in a case's probe arguments reaches the server, and the
// record, as it was written: the whole path from the case file to the
// recorded tool call, and what the server received.
func TestProbeSendsNumbersAsWritten(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	const args = `{"id": 9007199254740993, "big": 12345678901234567890, "ratio": 1.10, "list": [9007199254740995, -0.0]}`
	c, err := lux.ParseCase([]byte(fmt.Sprintf(`{"id": "numbers", "prompt": "probe",
		"driver": {"name": "mcp-probe", "config": {"command": %q, "env": {"LUX_MCP_TEST_SERVER": "tools"},
			"probe": [{"op": "call", "tool": "args", "args": %s}]}}}`, exe, args)))
	require.NoError(t, err)
	raw, err := lux.ConfigJSON(c.Driver.Config)
	require.NoError(t, err)
	o := probe(t, raw)
	require.Equal(t, lux.EventDone, o.terminal().Type, o.reason())

	calls, results := o.progress(lux.KindToolCall), o.progress(lux.KindToolResult)
	require.Len(t, calls, 1)
	require.Len(t, results, 1)
	recorded, err := json.Marshal(o.events[slices.IndexFunc(o.events, func(e lux.Event) bool {
		return e.Type == lux.EventProgress && e.Progress.Kind == lux.KindToolCall
	})])
	require.NoError(t, err)
	received := results[0].ToolResult.Text
	for _, n := range []string{"9007199254740993", "12345678901234567890", "1.10", "9007199254740995", "-0.0"} {
		assert.Contains(t, string(recorded), n, "the recorded call keeps %s", n)
		assert.True(t, strings.Contains(received, n), "the server received %s; it got %s", n, received)
	}
}
