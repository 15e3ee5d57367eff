package temporal

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/luxeval/lux/orchestrator"
)

// fakeRuns is a run activity whose outcome per key the test chooses,
// counting the attempts of each key.
type fakeRuns struct {
	mu       sync.Mutex
	attempts map[string]int
	ids      []string
	queues   map[string]string // by activity ID: the task queue it was scheduled on
	outcome  func(ctx context.Context, key string, attempt int) (*RunSummary, error)
}

func (f *fakeRuns) Run(ctx context.Context, run orchestrator.PlannedRun) (*RunSummary, error) {
	info := activity.GetInfo(ctx)
	f.mu.Lock()
	if f.attempts == nil {
		f.attempts = map[string]int{}
	}
	f.attempts[run.Key]++
	n := f.attempts[run.Key]
	f.ids = append(f.ids, info.ActivityID)
	if f.queues == nil {
		f.queues = map[string]string{}
	}
	f.queues[info.ActivityID] = info.TaskQueue
	f.mu.Unlock()
	return f.outcome(ctx, run.Key, n)
}

func newEnv(t *testing.T, f *fakeRuns) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(RunsWorkflow, workflow.RegisterOptions{Name: RunsWorkflowName})
	env.RegisterActivityWithOptions(f.Run, activity.RegisterOptions{Name: RunActivityName})
	return env
}

func planned(key string) orchestrator.PlannedRun {
	return orchestrator.PlannedRun{Key: key, Group: "suite/s", Spec: orchestrator.RunSpec{RunTimeout: time.Minute}}
}

func signalRuns(env *testsuite.TestWorkflowEnvironment, keys ...string) {
	env.RegisterDelayedCallback(func() {
		for _, k := range keys {
			env.SignalWorkflow(RunSignal, RunRequest{Run: planned(k), Request: k})
		}
	}, time.Second)
}

func TestRunsWorkflowRunsEachKeyOnceAsItsActivityID(t *testing.T) {
	f := &fakeRuns{outcome: func(ctx context.Context, key string, _ int) (*RunSummary, error) {
		return &RunSummary{Key: key, RunID: "c/d/" + key}, nil
	}}
	env := newEnv(t, f)
	signalRuns(env, "s/0", "s/1", "s/0", "s/2")
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(RunSignal, RunRequest{Run: planned("s/1"), Request: "again"}) }, time.Minute) // a resumed client asks again
	env.ExecuteWorkflow(RunsWorkflowName, Params{IdleTimeout: 10 * time.Minute})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res RunsResult
	require.NoError(t, env.GetWorkflowResult(&res))
	assert.Equal(t, 3, res.Runs)
	assert.ElementsMatch(t, []string{"s/0", "s/1", "s/2"}, f.ids, "one activity per key, its ID the key")
}

// Each run's activity goes to the queue its planned run names (its
// profile's), else to the executor's: one workflow, runs on two queues.
func TestRunsWorkflowSchedulesEachRunOnItsQueue(t *testing.T) {
	f := &fakeRuns{outcome: func(ctx context.Context, key string, _ int) (*RunSummary, error) {
		return &RunSummary{Key: key, RunID: "c/d/" + key}, nil
	}}
	env := newEnv(t, f)
	env.RegisterDelayedCallback(func() {
		for key, queue := range map[string]string{"s/0": "", "s/1": "gpu", "s/2": "linux-codex"} {
			run := planned(key)
			run.Queue = queue
			env.SignalWorkflow(RunSignal, RunRequest{Run: run, Request: key})
		}
	}, time.Second)
	env.ExecuteWorkflow(RunsWorkflowName, Params{Queue: "main", IdleTimeout: 10 * time.Minute})
	require.NoError(t, env.GetWorkflowError())
	assert.Equal(t, map[string]string{"s/0": "main", "s/1": "gpu", "s/2": "linux-codex"}, f.queues)
}

// A client whose suite ended says so (EndSignal): the workflow completes
// once the runs in progress end, without waiting out its idle timeout.
func TestRunsWorkflowCompletesWhenTheClientEnds(t *testing.T) {
	f := &fakeRuns{outcome: func(ctx context.Context, key string, _ int) (*RunSummary, error) {
		return &RunSummary{Key: key, RunID: "c/d/" + key}, nil
	}}
	env := newEnv(t, f)
	began := env.Now()
	env.RegisterDelayedCallback(func() {
		for _, k := range []string{"s/0", "s/1", "s/2"} {
			env.SignalWorkflow(RunSignal, RunRequest{Run: planned(k), Request: k})
		}
		env.SignalWorkflow(EndSignal, nil) // with the runs in progress
	}, time.Second)
	env.ExecuteWorkflow(RunsWorkflowName, Params{IdleTimeout: time.Hour})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res RunsResult
	require.NoError(t, env.GetWorkflowResult(&res))
	assert.Equal(t, 3, res.Runs, "the runs in progress ended first")
	assert.Len(t, f.ids, 3)
	assert.Less(t, env.Now().Sub(began), time.Minute, "the workflow did not wait out its idle hour")
}

func TestRunsWorkflowRetriesInfrastructureOnly(t *testing.T) {
	f := &fakeRuns{outcome: func(ctx context.Context, key string, n int) (*RunSummary, error) {
		switch {
		case key == "lost" && n < 3: // the worker died twice, then a run
			return nil, temporal.NewApplicationError("worker lost", ErrInfrastructure)
		case key == "lost":
			return &RunSummary{Key: key}, nil
		case key == "agent-failed":
			return nil, temporal.NewApplicationErrorWithOptions("fail", ErrRunOutcome,
				temporal.ApplicationErrorOptions{NonRetryable: true, Details: []any{&RunSummary{Key: key, Verdict: "fail"}}})
		case key == "identity":
			return nil, temporal.NewNonRetryableApplicationError("identity", ErrIdentityMismatch, nil)
		case key == "invalid": // refused: the type alone stops retries
			return nil, temporal.NewApplicationError("invalid", ErrInvalidCase)
		case key == "store":
			return nil, temporal.NewApplicationError("store unreachable", ErrInfrastructure)
		}
		return nil, errors.New("unexpected key")
	}}
	env := newEnv(t, f)
	signalRuns(env, "lost", "agent-failed", "identity", "invalid", "store")
	env.ExecuteWorkflow(RunsWorkflowName, Params{IdleTimeout: time.Hour, MaxAttempts: 4})
	require.NoError(t, env.GetWorkflowError())
	assert.Equal(t, map[string]int{"lost": 3, "agent-failed": 1, "identity": 1, "invalid": 1, "store": 4}, f.attempts)
}

// blockingRun is an outcome that runs until the workflow cancels it:
// the test environment completes a cancelled activity itself, without
// cancelling its context or waiting for it (the run activity's own
// cancellation is TestRunActivityCancelled), so the listener the
// returned function is stops it.
func blockingRun(t *testing.T, started chan<- string) (func(ctx context.Context, key string, _ int) (*RunSummary, error), func(*activity.Info)) {
	var mu sync.Mutex
	stop := map[string]chan struct{}{}
	ch := func(key string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		if stop[key] == nil {
			stop[key] = make(chan struct{})
		}
		return stop[key]
	}
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	run := func(ctx context.Context, key string, _ int) (*RunSummary, error) {
		if key == "keep" {
			return &RunSummary{Key: key}, nil
		}
		started <- key
		select {
		case <-ch(key):
		case <-release:
		}
		return nil, temporal.NewCanceledError(&RunSummary{Key: key, ExitReason: "cancelled"})
	}
	return run, func(info *activity.Info) { close(ch(info.ActivityID)) }
}

func TestCancellingTheRunsWorkflowCancelsEveryRun(t *testing.T) {
	started := make(chan string, 2)
	run, stop := blockingRun(t, started)
	f := &fakeRuns{outcome: run}
	env := newEnv(t, f)
	var cancelled []string
	env.SetOnActivityCanceledListener(func(info *activity.Info) { cancelled = append(cancelled, info.ActivityID); stop(info) })
	signalRuns(env, "a", "b")
	env.RegisterDelayedCallback(func() {
		<-started
		<-started
		env.CancelWorkflow()
	}, 2*time.Second)
	env.ExecuteWorkflow(RunsWorkflowName, Params{HeartbeatTimeout: time.Hour})
	require.True(t, env.IsWorkflowCompleted())
	var canceled *temporal.CanceledError
	require.ErrorAs(t, env.GetWorkflowError(), &canceled)
	assert.ElementsMatch(t, []string{"a", "b"}, cancelled, "each run in progress was cancelled")
}

func TestTheCancelSignalCancelsOneRun(t *testing.T) {
	started := make(chan string, 1)
	run, stop := blockingRun(t, started)
	f := &fakeRuns{outcome: run}
	env := newEnv(t, f)
	var cancelled []string
	env.SetOnActivityCanceledListener(func(info *activity.Info) { cancelled = append(cancelled, info.ActivityID); stop(info) })
	signalRuns(env, "stop", "keep")
	env.RegisterDelayedCallback(func() {
		<-started
		env.SignalWorkflow(CancelSignal, "stop")
	}, 2*time.Second)
	env.ExecuteWorkflow(RunsWorkflowName, Params{HeartbeatTimeout: time.Hour, IdleTimeout: time.Minute})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError(), "cancelling a run does not cancel the workflow")
	assert.Equal(t, []string{"stop"}, cancelled)
	assert.Equal(t, map[string]int{"stop": 1, "keep": 1}, f.attempts)
}

func TestActivityOptionsComeFromTheRun(t *testing.T) {
	run := planned("suite-1/3")
	run.Spec.CleanupTimeout = 30 * time.Second
	o := activityOptions(Params{}.withDefaults(), &run, 1)
	assert.Equal(t, "suite-1/3", o.ActivityID)
	assert.Equal(t, "suite-1/3#2", activityOptions(Params{}.withDefaults(), &run, 2).ActivityID)
	assert.Equal(t, time.Minute+time.Minute+10*time.Minute, o.StartToCloseTimeout)
	assert.True(t, o.WaitForCancellation)
	assert.Equal(t, DefaultHeartbeatTimeout, o.HeartbeatTimeout)
	assert.ElementsMatch(t, []string{ErrRunOutcome, ErrIdentityMismatch, ErrInvalidCase}, o.RetryPolicy.NonRetryableErrorTypes)
}

func TestAKeyRunsAgainOnlyAfterACancelledRun(t *testing.T) {
	started := make(chan string, 2)
	run, stop := blockingRun(t, started)
	f := &fakeRuns{outcome: func(ctx context.Context, key string, n int) (*RunSummary, error) {
		if n == 2 {
			return &RunSummary{Key: key}, nil
		}
		return run(ctx, key, n)
	}}
	env := newEnv(t, f)
	env.SetOnActivityCanceledListener(stop)
	signalRuns(env, "x")
	env.RegisterDelayedCallback(func() {
		<-started
		env.SignalWorkflow(CancelSignal, "x")
	}, 2*time.Second)
	env.RegisterDelayedCallback(func() { // a resumed client asks for x again, twice
		env.SignalWorkflow(RunSignal, RunRequest{Run: planned("x"), Request: "r2"})
	}, time.Minute)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(RunSignal, RunRequest{Run: planned("x"), Request: "r3"})
	}, 2*time.Minute)
	env.ExecuteWorkflow(RunsWorkflowName, Params{HeartbeatTimeout: time.Hour, IdleTimeout: 10 * time.Minute})
	require.NoError(t, env.GetWorkflowError())
	assert.Equal(t, []string{"x", "x#2"}, f.ids, "run again once: the second run ended with its record")
}

func TestALongHistoryContinuesAsNewWithWhatItRanAndWhatItHolds(t *testing.T) {
	f := &fakeRuns{outcome: func(ctx context.Context, key string, _ int) (*RunSummary, error) {
		if key == "b" {
			return nil, temporal.NewApplicationErrorWithOptions("fail", ErrRunOutcome,
				temporal.ApplicationErrorOptions{NonRetryable: true, Details: []any{&RunSummary{Key: key, RunID: "c/d/b", Verdict: "fail"}}})
		}
		return &RunSummary{Key: key, RunID: "c/d/" + key}, nil
	}}
	env := newEnv(t, f)
	signalRuns(env, "a", "b", "c")
	env.ExecuteWorkflow(RunsWorkflowName, Params{MaxRunsPerHistory: 2})
	require.True(t, env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	assert.ElementsMatch(t, []string{"a", "b"}, f.ids, "the third run waits for the next history")
	var next Params
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.Len(t, next.Done, 2)
	assert.Equal(t, "a", next.Done[0].Key)
	assert.Equal(t, "c/d/a", next.Done[0].Last.Summary.RunID)
	assert.Equal(t, "c/d/b", next.Done[1].Last.Summary.RunID, "a run's outcome carries its summary")
	assert.Contains(t, next.Done[1].Last.Error, "fail")
	require.Len(t, next.Pending, 1)
	assert.Equal(t, "c", next.Pending[0].Run.Key)
	assert.Equal(t, 2, next.MaxRunsPerHistory)

	// The next run starts the held request, and never runs a done key
	// again.
	f2 := &fakeRuns{outcome: f.outcome}
	env2 := newEnv(t, f2)
	signalRuns(env2, "a")
	env2.ExecuteWorkflow(RunsWorkflowName, next)
	require.NoError(t, env2.GetWorkflowError())
	assert.Equal(t, []string{"c"}, f2.ids)
}
