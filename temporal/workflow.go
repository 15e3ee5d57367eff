package temporal

import (
	"errors"
	"slices"
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/luxeval/lux/orchestrator"
)

// Names of the workflow, its signals and the activity, as registered.
const (
	// RunsWorkflowName is the workflow of one suite (or one experiment):
	// it executes each run signalled to it as one activity.
	RunsWorkflowName = "lux.Runs"
	// RunActivityName is the activity that executes one whole run.
	RunActivityName = "lux.Run"
	// RunSignal asks the workflow to execute a run (a RunRequest). A key
	// in progress, or whose run ended with a record (any verdict), is not
	// run again; one whose last run was cancelled or lost is.
	RunSignal = "lux.run"
	// CancelSignal asks it to cancel the run of a key (a string).
	CancelSignal = "lux.cancel"
)

// Params configures a runs workflow. The zero value has sane defaults.
type Params struct {
	// Queue is the task queue the runs go to; default the workflow's.
	Queue string `json:"queue,omitempty"`
	// IdleTimeout ends the workflow once no run is in progress and none
	// was asked for that long; default DefaultIdleTimeout. A key asked
	// for after it ends starts a new workflow, which runs it again.
	IdleTimeout time.Duration `json:"idleTimeoutNs,omitempty"`
	// HeartbeatTimeout is how long a run may go without a heartbeat
	// before its worker is taken for lost and the run is retried on
	// another; default DefaultHeartbeatTimeout.
	HeartbeatTimeout time.Duration `json:"heartbeatTimeoutNs,omitempty"`
	// MaxAttempts bounds the attempts of a run that fails for
	// infrastructure (a lost worker, a record that could not be
	// written); default DefaultMaxAttempts. A run the agent finished is
	// never attempted again, whatever its verdict.
	MaxAttempts int32 `json:"maxAttempts,omitempty"`
	// RetryInterval is the wait before the first retry, doubled each
	// time up to a minute; default a second.
	RetryInterval time.Duration `json:"retryIntervalNs,omitempty"`
}

// Defaults of Params.
const (
	DefaultIdleTimeout      = time.Hour
	DefaultHeartbeatTimeout = 20 * time.Second
	DefaultMaxAttempts      = 5
)

func (p Params) withDefaults() Params {
	if p.IdleTimeout <= 0 {
		p.IdleTimeout = DefaultIdleTimeout
	}
	if p.HeartbeatTimeout <= 0 {
		p.HeartbeatTimeout = DefaultHeartbeatTimeout
	}
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.RetryInterval <= 0 {
		p.RetryInterval = time.Second
	}
	return p
}

// RunRequest is RunSignal's payload: the run, and the request's own ID,
// by which the client that sent it tells which outcome answers it.
type RunRequest struct {
	Run     orchestrator.PlannedRun `json:"run"`
	Request string                  `json:"request"`
}

// RunsResult is what a runs workflow returns: how many distinct runs it
// executed.
type RunsResult struct {
	Runs int `json:"runs"`
}

// RunsWorkflow executes the runs signalled to it (RunSignal), one
// activity each, with the run's key as the activity ID, and ends once it
// has been idle for Params.IdleTimeout. Its cancellation cancels every
// run in progress and waits for each to be recorded.
func RunsWorkflow(ctx workflow.Context, p Params) (*RunsResult, error) {
	p = p.withDefaults()
	if p.Queue == "" {
		p.Queue = workflow.GetInfo(ctx).TaskQueueName
	}
	type keyState struct {
		n       int  // activities started for the key
		running bool // one is in progress
		final   bool // the last one ended with the run's record
		cancel  workflow.CancelFunc
	}
	var (
		keys    = map[string]*keyState{}
		pending int
		seq     int // changes with every signal and every run that ends
	)
	start := func(run orchestrator.PlannedRun) {
		st := keys[run.Key]
		if st == nil {
			st = &keyState{}
			keys[run.Key] = st
		}
		if st.running || st.final {
			return // its outcome is, or will be, in the history
		}
		st.n++
		actx, cancel := workflow.WithCancel(ctx)
		st.running, st.cancel = true, cancel
		pending++
		actx = workflow.WithActivityOptions(actx, activityOptions(p, &run, st.n))
		workflow.Go(actx, func(gctx workflow.Context) {
			err := workflow.ExecuteActivity(gctx, RunActivityName, run).Get(gctx, nil)
			st.running, st.final = false, finalOutcome(err)
			pending--
			seq++
		})
	}
	runs := workflow.GetSignalChannel(ctx, RunSignal)
	cancelCh := workflow.GetSignalChannel(ctx, CancelSignal)
	workflow.Go(ctx, func(gctx workflow.Context) {
		for {
			sel := workflow.NewSelector(gctx)
			sel.AddReceive(runs, func(c workflow.ReceiveChannel, _ bool) {
				var req RunRequest
				c.Receive(gctx, &req)
				start(req.Run)
			})
			sel.AddReceive(cancelCh, func(c workflow.ReceiveChannel, _ bool) {
				var key string
				c.Receive(gctx, &key)
				if st := keys[key]; st != nil && st.running {
					st.cancel()
				}
			})
			sel.Select(gctx)
			seq++
			if gctx.Err() != nil {
				return
			}
		}
	})
	for {
		last := seq
		ok, err := workflow.AwaitWithTimeout(ctx, p.IdleTimeout, func() bool { return seq != last || pending > 0 })
		if err != nil {
			break // cancelled
		}
		if !ok && runs.Len() == 0 && cancelCh.Len() == 0 {
			return &RunsResult{Runs: len(keys)}, nil
		}
		if err := workflow.Await(ctx, func() bool { return pending == 0 }); err != nil {
			break
		}
	}
	// Cancelled: the runs in progress were cancelled with ctx; wait for
	// their records.
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	_ = workflow.Await(dctx, func() bool { return pending == 0 })
	return &RunsResult{Runs: len(keys)}, temporal.NewCanceledError()
}

// finalOutcome reports whether an activity that ended with err ended
// with the run's record: it completed, or failed for a reason that is
// never retried (the run's outcome, a refused identity or case). A run
// cancelled, or lost after every attempt, may run again.
func finalOutcome(err error) bool {
	if err == nil {
		return true
	}
	var app *temporal.ApplicationError
	return errors.As(err, &app) && slices.Contains(finalTypes, app.Type())
}

// finalTypes are the failures of the run activity that are never retried.
var finalTypes = []string{ErrRunOutcome, ErrIdentityMismatch, ErrInvalidCase}

// activityID is the ID of the n-th activity of a key: the key, then
// key#2, ... for a run asked for again after a cancelled or lost one.
func activityID(key string, n int) string {
	if n <= 1 {
		return key
	}
	return key + "#" + strconv.Itoa(n)
}

// activityOptions are the options of run's n-th activity: its key as ID, a
// limit past the run's own (setup and grading are outside it), the
// heartbeat timeout, retries for infrastructure only, and a cancellation
// that waits for the run's record.
func activityOptions(p Params, run *orchestrator.PlannedRun, n int) workflow.ActivityOptions {
	limit := run.Timeout()
	if limit <= 0 {
		limit = orchestrator.DefaultRunTimeout
	}
	return workflow.ActivityOptions{
		ActivityID:          activityID(run.Key, n),
		TaskQueue:           p.Queue,
		StartToCloseTimeout: limit + 2*run.Spec.CleanupTimeout + 10*time.Minute,
		HeartbeatTimeout:    p.HeartbeatTimeout,
		WaitForCancellation: true,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: p.RetryInterval, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			MaximumAttempts:        p.MaxAttempts,
			NonRetryableErrorTypes: finalTypes,
		},
	}
}
