package driver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

// replyProtocol is textProtocol, plus: a "req" line is answered at once on
// stdin, the way a JSON-RPC client answers a server's request.
type replyProtocol struct{ textProtocol }

func (r replyProtocol) Parse(ctx context.Context, line []byte, stdin *driver.Stdin) ([]lux.Event, error) {
	if string(line) == "req" {
		p := lux.NewProgress("req", "note", nil)
		return []lux.Event{{Type: lux.EventProgress, Progress: &p}}, stdin.WriteLine(ctx, []byte("reply"))
	}
	return r.textProtocol.Parse(ctx, line, stdin)
}

// A reply the protocol cannot write because the agent exited is not a
// parse error: the run's error is the agent's exit, with its stderr.
func TestSessionReplyToExitedAgent(t *testing.T) {
	s := start(t, driver.SessionOptions{
		Protocol: replyProtocol{},
		Process:  driver.ProcessSpec{Path: "/bin/sh", Args: []string{"-c", "echo ready; exec <&-; echo crashed >&2; echo req; exit 5"}},
		// The session gives an agent whose stdin is gone ExitDrain to exit
		// and explain itself, and its stderr copy as long to catch up: this
		// one exits at once, so the bound is never waited for in full.
		ExitDrain: safety,
	})
	got := drive(t, s)
	require.Len(t, got, 3, "%q", got)
	assert.Equal(t, []string{"ready fake", "progress req"}, got[:2])
	assert.True(t, strings.HasPrefix(got[2], "error error: agent exited before done (code=5, signal=none)"), got[2])
	assert.Contains(t, got[2], "crashed")
}

// A reply the protocol cannot write because the agent closed its stdin
// while it keeps running ends the run at once, saying so.
func TestSessionReplyToAgentThatClosedStdin(t *testing.T) {
	s := start(t, driver.SessionOptions{
		Protocol: replyProtocol{},
		Process:  driver.ProcessSpec{Path: "/bin/sh", Args: []string{"-c", "echo ready; exec <&-; echo req; sleep 60"}},
	})
	got := drive(t, s)
	require.Len(t, got, 3, "%q", got)
	assert.Equal(t, []string{"ready fake", "progress req"}, got[:2])
	assert.True(t, strings.HasPrefix(got[2], "error error: cannot write to the agent: it closed its stdin"), got[2])
}
