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
	// EndSignal says the client's suite (or experiment) ended: the
	// workflow completes once no run is in progress and no request
	// waits, without waiting out its idle timeout. A request that still
	// arrives is run first.
	EndSignal = "lux.end"
)

// Params configures a runs workflow. The zero value has sane defaults.
type Params struct {
	// Queue is the task queue of the runs whose planned run names none
	// (PlannedRun.Queue, a profile's); default the workflow's.
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
	// MaxRunsPerHistory, when positive, continues the workflow as new
	// after that many runs; it always does once Temporal suggests it (the
	// history nears its limits). The runs in progress end first.
	MaxRunsPerHistory int `json:"maxRunsPerHistory,omitempty"`
	// Outcomes makes the workflow return how each key's run ended
	// (RunsResult.Outcomes): the round of an experiment does.
	Outcomes bool `json:"outcomes,omitempty"`

	// Done and Pending are what a workflow continued as new was handed:
	// the keys that ran with their record, and the requests not started.
	Done    []KeyRecord  `json:"done,omitempty"`
	Pending []RunRequest `json:"pending,omitempty"`
	// Ended is set when the workflow continued as new after EndSignal.
	Ended bool `json:"ended,omitempty"`
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
	// Outcomes are the keys whose run ended with its record, in the order
	// first asked for, when Params.Outcomes asks for them.
	Outcomes []KeyRecord `json:"outcomes,omitempty"`
}

// RunsWorkflow executes the runs signalled to it (RunSignal), one
// activity each, with the run's key as the activity ID, and ends once its
// client says it is done (EndSignal) and no run is in progress, or once
// it has been idle for Params.IdleTimeout. Its cancellation cancels every
// run in progress and waits for each to be recorded.
func RunsWorkflow(ctx workflow.Context, p Params) (*RunsResult, error) {
	p = p.withDefaults()
	if p.Queue == "" {
		p.Queue = workflow.GetInfo(ctx).TaskQueueName
	}
	type keyState struct {
		n       int  // activities started for the key, here and before
		running bool // one is in progress
		final   bool // the last one ended with the run's record
		last    *Outcome
		cancel  workflow.CancelFunc
	}
	var (
		keys     = map[string]*keyState{}
		order    []string // the keys, in the order first asked for
		pending  int
		started  int  // activities started by this run of the workflow
		draining bool // continuing as new once the runs in progress end
		buffered []RunRequest
		seq      int // changes with every signal and every run that ends
	)
	for _, k := range p.Done { // what the runs before this one ran
		keys[k.Key] = &keyState{n: k.Runs, final: true, last: k.Last}
		order = append(order, k.Key)
	}
	p.Done = nil
	start := func(req RunRequest) {
		run := req.Run
		st := keys[run.Key]
		if st == nil {
			st = &keyState{}
			keys[run.Key] = st
			order = append(order, run.Key)
		}
		if st.running || st.final {
			return // its outcome is, or will be, in the history
		}
		if !draining && (p.MaxRunsPerHistory > 0 && started >= p.MaxRunsPerHistory || workflow.GetInfo(ctx).GetContinueAsNewSuggested()) {
			draining = true
		}
		if draining {
			buffered = append(buffered, req)
			return
		}
		st.n++
		started++
		actx, cancel := workflow.WithCancel(ctx)
		st.running, st.cancel = true, cancel
		pending++
		actx = workflow.WithActivityOptions(actx, activityOptions(p, &run, st.n))
		workflow.Go(actx, func(gctx workflow.Context) {
			var sum RunSummary
			err := workflow.ExecuteActivity(gctx, RunActivityName, run).Get(gctx, &sum)
			st.running, st.final = false, finalOutcome(err)
			if st.final {
				st.last = newOutcome(&sum, err)
			}
			pending--
			seq++
		})
	}
	runs := workflow.GetSignalChannel(ctx, RunSignal)
	cancelCh := workflow.GetSignalChannel(ctx, CancelSignal)
	endCh := workflow.GetSignalChannel(ctx, EndSignal)
	ended := p.Ended
	for _, req := range p.Pending {
		start(req)
	}
	p.Pending = nil
	workflow.Go(ctx, func(gctx workflow.Context) {
		for {
			sel := workflow.NewSelector(gctx)
			sel.AddReceive(runs, func(c workflow.ReceiveChannel, _ bool) {
				var req RunRequest
				c.Receive(gctx, &req)
				start(req)
			})
			sel.AddReceive(endCh, func(c workflow.ReceiveChannel, _ bool) {
				c.Receive(gctx, nil)
				ended = true
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
		// Nothing to do: no run in progress, no signal waiting.
		quiet := func() bool { return pending == 0 && !draining && runs.Len() == 0 && cancelCh.Len() == 0 }
		ok, err := workflow.AwaitWithTimeout(ctx, p.IdleTimeout, func() bool {
			return seq != last || pending > 0 || draining || ended && quiet()
		})
		if err != nil {
			break // cancelled
		}
		if (!ok || ended) && quiet() {
			res := &RunsResult{Runs: len(keys)}
			for _, k := range order {
				if st := keys[k]; p.Outcomes && st.final {
					res.Outcomes = append(res.Outcomes, KeyRecord{Key: k, Runs: st.n, Last: st.last})
				}
			}
			return res, nil
		}
		if err := workflow.Await(ctx, func() bool { return pending == 0 }); err != nil {
			break
		}
		if draining {
			// The history is long: go on in a fresh one, with what this
			// one ran and the requests it holds.
			for {
				var req RunRequest
				if !runs.ReceiveAsync(&req) {
					break
				}
				buffered = append(buffered, req)
			}
			next := p
			for _, k := range order {
				if st := keys[k]; st.final {
					next.Done = append(next.Done, KeyRecord{Key: k, Runs: st.n, Last: st.last})
				}
			}
			next.Pending = buffered
			next.Ended = ended
			return nil, workflow.NewContinueAsNewError(ctx, RunsWorkflowName, next)
		}
	}
	// Cancelled: the runs in progress were cancelled with ctx; wait for
	// their records.
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	_ = workflow.Await(dctx, func() bool { return pending == 0 })
	return &RunsResult{Runs: len(keys)}, temporal.NewCanceledError()
}

// KeyRecord is what a runs workflow hands the run it continues as of a
// key whose run ended with its record: a request for the key is
// answered by that outcome, never by a new run.
type KeyRecord struct {
	Key  string   `json:"key"`
	Runs int      `json:"runs"` // activities started for the key
	Last *Outcome `json:"last,omitempty"`
}

// Outcome is how a run's activity ended, as a continued workflow passes
// it on: its summary, and the failure's text when it failed.
type Outcome struct {
	Summary *RunSummary `json:"summary,omitempty"`
	Error   string      `json:"error,omitempty"`
}

func newOutcome(sum *RunSummary, err error) *Outcome {
	if err == nil {
		return &Outcome{Summary: sum}
	}
	o := &Outcome{Error: err.Error()}
	if f := failed(err); f.sum != nil {
		o.Summary = f.sum
	}
	return o
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

// activityOptions are the options of run's n-th activity: its key as ID,
// the run's queue (its profile's) else the workflow's, a
// limit past the run's own (setup and grading are outside it), the
// heartbeat timeout, retries for infrastructure only, and a cancellation
// that waits for the run's record.
func activityOptions(p Params, run *orchestrator.PlannedRun, n int) workflow.ActivityOptions {
	limit := run.Timeout()
	if limit <= 0 {
		limit = orchestrator.DefaultRunTimeout
	}
	queue := run.Queue
	if queue == "" {
		queue = p.Queue
	}
	return workflow.ActivityOptions{
		ActivityID:          activityID(run.Key, n),
		TaskQueue:           queue,
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
