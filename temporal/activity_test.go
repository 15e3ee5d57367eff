package temporal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/builtin"
	"github.com/luxeval/lux/record"
)

// activityEnv runs the real run activity recording under root; ctx is
// the worker's, whose cancellation the activity sees as its own. The
// channel receives the heartbeats.
func activityEnv(t *testing.T, ctx context.Context, reg *lux.Registry, root string) (*testsuite.TestActivityEnvironment, <-chan Heartbeat) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.SetWorkerOptions(worker.Options{BackgroundActivityContext: ctx})
	beats := make(chan Heartbeat, 10000)
	a := &Activities{Registry: reg, Store: SharedDir(root), Identity: "test-worker", HeartbeatEvery: 10 * time.Millisecond,
		// The SDK throttles heartbeats to the server; the test sees each.
		heartbeat: func(ctx context.Context, details ...any) {
			select {
			case beats <- details[0].(Heartbeat):
			default:
			}
			activity.RecordHeartbeat(ctx, details...)
		}}
	env.RegisterActivityWithOptions(a.Run, activity.RegisterOptions{Name: RunActivityName})
	return env, beats
}

func TestRunActivityRecordsThePassingRunAndReturnsOnlyItsSummary(t *testing.T) {
	dir := t.TempDir()
	agent, gate := writeAgent(t, dir)
	root := filepath.Join(dir, "runs")
	reg := builtin.Registry()
	run := planOf(t, reg, testOptions(root), agentCase("hello", "hello", "hello", agent, gate))
	env, _ := activityEnv(t, context.Background(), builtin.Registry(), root)
	val, err := env.ExecuteActivity(RunActivityName, run)
	require.NoError(t, err)
	var sum RunSummary
	require.NoError(t, val.Get(&sum))
	assert.Equal(t, record.VerdictPass, sum.Verdict)
	assert.Equal(t, "unit/hello", sum.Key)
	assert.Equal(t, "test-worker", sum.Worker)
	meta, g, err := record.ReadMetadata(filepath.Join(root, filepath.FromSlash(sum.RunID)))
	require.NoError(t, err, "the record is in the store, at the summary's run id")
	assert.True(t, *g.Passed)
	assert.Equal(t, run.Identity.CaseHash, meta.Provenance.CaseHash)
}

func TestRunActivityHeartbeatsTheEventsSeenWhileTheAgentRuns(t *testing.T) {
	dir := t.TempDir()
	agent, gate := writeAgent(t, dir)
	root := filepath.Join(dir, "runs")
	run := planOf(t, builtin.Registry(), testOptions(root), agentCase("gated", "gate", "hello", agent, gate))
	env, beats := activityEnv(t, context.Background(), builtin.Registry(), root)
	go func() {
		// The agent waits at its gate until a heartbeat has counted its
		// ready event.
		for hb := range beats {
			if hb.EventsSeen > 0 && !hb.LastEventAt.IsZero() {
				break
			}
		}
		_ = os.WriteFile(filepath.Join(gate, "release"), nil, 0o644)
	}()
	_, err := env.ExecuteActivity(RunActivityName, run)
	require.NoError(t, err)
}

func TestRunActivityFailsANonPassingRunAsItsOutcomeNotRetried(t *testing.T) {
	dir := t.TempDir()
	agent, gate := writeAgent(t, dir)
	root := filepath.Join(dir, "runs")
	run := planOf(t, builtin.Registry(), testOptions(root), agentCase("bye", "hello", "bye", agent, gate))
	env, _ := activityEnv(t, context.Background(), builtin.Registry(), root)
	_, err := env.ExecuteActivity(RunActivityName, run)
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.Equal(t, ErrRunOutcome, app.Type())
	assert.True(t, app.NonRetryable())
	var sum RunSummary
	require.NoError(t, app.Details(&sum))
	assert.Equal(t, record.VerdictFail, sum.Verdict)
	_, _, err = record.ReadMetadata(filepath.Join(root, filepath.FromSlash(sum.RunID)))
	assert.NoError(t, err, "the failed run is recorded")
}

func TestRunActivityRefusesARunItIdentifiesOtherwise(t *testing.T) {
	dir := t.TempDir()
	agent, gate := writeAgent(t, dir)
	root := filepath.Join(dir, "runs")
	run := planOf(t, builtin.Registry(), testOptions(root), agentCase("hello", "hello", "hello", agent, gate))
	run.Identity.DriverConfigHash = "sha256:planned-elsewhere"
	env, _ := activityEnv(t, context.Background(), builtin.Registry(), root)
	_, err := env.ExecuteActivity(RunActivityName, run)
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.Equal(t, ErrIdentityMismatch, app.Type())
	assert.True(t, app.NonRetryable())
	assert.Contains(t, err.Error(), "sha256:planned-elsewhere")
	runs, _ := record.FindRuns(root)
	assert.Empty(t, runs, "nothing ran")
}

func TestRunActivityCancelledStopsTheAgentsProcessTreeAndRecordsTheRun(t *testing.T) {
	dir := t.TempDir()
	agent, gate := writeAgent(t, dir)
	root := filepath.Join(dir, "runs")
	run := planOf(t, builtin.Registry(), testOptions(root), agentCase("hang", "hang", "hello", agent, gate))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env, _ := activityEnv(t, ctx, builtin.Registry(), root)
	pids := filepath.Join(gate, "pids.hang")
	var saw sync.Once
	// The agent writes its pids before it waits: cancel once they are
	// there. The heartbeat ticker is the only clock involved.
	go func() {
		for {
			if _, err := os.Stat(pids); err == nil {
				saw.Do(cancel)
				return
			}
			if ctx.Err() != nil {
				return
			}
			<-waitABit()
		}
	}()
	_, err := env.ExecuteActivity(RunActivityName, run)
	var canceled *temporal.CanceledError
	require.ErrorAs(t, err, &canceled, "got %v", err)
	var sum RunSummary
	require.True(t, canceled.HasDetails())
	require.NoError(t, canceled.Details(&sum))
	assert.Equal(t, lux.ExitCancelled, sum.ExitReason)
	_, _, err = record.ReadMetadata(filepath.Join(root, filepath.FromSlash(sum.RunID)))
	assert.NoError(t, err, "the cancelled run is recorded")
	b, err := os.ReadFile(pids)
	require.NoError(t, err)
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		assert.False(t, alive(pid), "process %d of the agent's tree survived", pid)
	}
}

// alive reports whether the process pid runs: it exists and is not a
// zombie waiting to be reaped.
func alive(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// An attempt that follows one lost with its worker (whose last heartbeat
// named the directory it left) keeps that directory under the run's
// attempts/, and heartbeats its own run's directory as soon as it exists.
func TestRunActivityKeepsTheLostAttemptsDirectoryUnderItsRun(t *testing.T) {
	dir := t.TempDir()
	agent, gate := writeAgent(t, dir)
	root := filepath.Join(dir, "runs")
	run := planOf(t, builtin.Registry(), testOptions(root), agentCase("hello", "hello", "hello", agent, gate))
	lost, err := record.ReserveRunDir(root, "hello", "subprocess", time.Now())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(lost, record.EventsFile), nil, 0o600))
	rel, err := filepath.Rel(root, lost)
	require.NoError(t, err)
	env, beats := activityEnv(t, context.Background(), builtin.Registry(), root)
	env.SetHeartbeatDetails(Heartbeat{EventsSeen: 3, RunDirs: []string{filepath.ToSlash(rel)}})
	val, err := env.ExecuteActivity(RunActivityName, run)
	require.NoError(t, err)
	var sum RunSummary
	require.NoError(t, val.Get(&sum))
	var named []string
	for len(beats) > 0 && named == nil {
		if hb := <-beats; len(hb.RunDirs) == 2 {
			named = hb.RunDirs
		}
	}
	assert.Equal(t, []string{filepath.ToSlash(rel), sum.RunID}, named, "the heartbeats name the lost directory and the run's")
	assert.NoDirExists(t, lost)
	runDir := filepath.Join(root, filepath.FromSlash(sum.RunID))
	assert.FileExists(t, filepath.Join(runDir, "attempts", "1", record.EventsFile))
	meta, _, err := record.ReadMetadata(runDir)
	require.NoError(t, err)
	require.Len(t, meta.Attempts, 2)
	assert.Equal(t, "lost", meta.Attempts[0].Cause)
	runs, err := record.FindRuns(root)
	require.NoError(t, err)
	assert.Equal(t, []string{runDir}, runs, "one run recorded")
}
