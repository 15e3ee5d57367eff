package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cancellingAnswerer cancels the run's context when asked anything, the
// way a user pressing ^C while the agent waits would.
type cancellingAnswerer struct{ cancel context.CancelFunc }

func (c *cancellingAnswerer) Prepare(context.Context, lux.AnswererInfo) (lux.Answerer, error) {
	return c, nil
}
func (c *cancellingAnswerer) Answer(ctx context.Context, in lux.Interrupt, _ []lux.Exchange) (lux.Answer, error) {
	c.cancel()
	<-ctx.Done()
	return lux.Answer{}, ctx.Err()
}
func (c *cancellingAnswerer) Usage() lux.ModelUsage { return lux.ModelUsage{} }
func (c *cancellingAnswerer) Close() error          { return nil }

// TestCancelStopsARealAgent runs the test binary as a lux-jsonl agent
// through the subprocess driver, cancels while the agent waits for an
// answer, and checks that its process is gone and the record is complete.
func TestCancelStopsARealAgent(t *testing.T) {
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	reg := testRegistry(t)
	require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
	require.NoError(t, reg.RegisterAnswerer(&lux.AnswererPlugin{Name: "cancel", Doc: "cancels the run when asked", Parse: func(json.RawMessage) (lux.AnswererConfig, error) {
		return &cancellingAnswerer{cancel: cancelRun}, nil
	}}))
	pidFile := filepath.Join(t.TempDir(), "agent.pid")
	// The agent writes its pid outside its workspace: the sandbox lets it.
	o := New(reg, Options{RunsRoot: t.TempDir(), Sandbox: sandbox.Config{ReadWrite: []string{filepath.Dir(pidFile)}}})
	exe, err := os.Executable()
	require.NoError(t, err)
	c := &lux.Case{ID: "asker", Prompt: "p",
		Driver: &lux.PluginRef{Name: "subprocess", Config: map[string]any{"command": exe,
			"env": map[string]string{"LUX_TEST_AGENT": "asker", "LUX_TEST_PIDFILE": pidFile}}},
		Answerer: &lux.PluginRef{Name: "cancel"},
	}
	res, err := o.Run(runCtx, c)
	require.Error(t, err)
	require.True(t, errors.Is(err, context.Canceled), "%v", err)
	require.NotNil(t, res)
	assert.Equal(t, lux.ExitCancelled, res.Metadata.ExitReason)
	assert.Equal(t, record.PhaseCancel, res.Metadata.OperationalFailure.Phase)
	assert.Equal(t, "asker", res.Metadata.Driver.AgentID)
	assert.Equal(t, record.InterruptCounts{Ask: 1}, res.Metadata.InterruptCounts)
	require.Len(t, res.Artifacts, 1)
	assert.Equal(t, "partial.txt", res.Artifacts[0].Path)
	assert.Equal(t, int64(4), res.Artifacts[0].Size)

	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(string(b))
	require.NoError(t, err)
	assert.True(t, errors.Is(syscall.Kill(pid, 0), syscall.ESRCH), "the agent process %d is stopped", pid)

	got := readBack(t, res)
	types := eventTypes(got.Events)
	assert.Contains(t, types, "interrupt")
	assert.NotContains(t, types, "responded")
	_, err = record.ReadRun(res.Dir)
	require.NoError(t, err)
}
