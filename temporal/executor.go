package temporal

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// Executor is an orchestrator.Executor that executes runs on Temporal
// workers: the runs of a suite (or of an experiment) go to one runs
// workflow (RunsWorkflow), whose ID is WorkflowPrefix and the run's
// group, as signals; each becomes one activity on Queue. The workers
// record the runs in the store; Execute reads the record from RunsRoot,
// the client's view of that store. It learns that a run ended by
// following the workflow's history (a long poll), never by sleeping.
type Executor struct {
	Client client.Client
	// Queue is the task queue the workflows and their runs go to.
	Queue string
	// RunsRoot is where the client reads the records the workers write
	// (the shared directory's path here).
	RunsRoot string
	// Params configure the workflows this executor starts.
	Params Params
	// WorkflowPrefix prefixes the workflows' IDs; default "lux/".
	WorkflowPrefix string

	mu       sync.Mutex
	watchers map[string]*watcher // by workflow run ID
}

// outcome is how a run's activity ended, as its history says.
type outcome struct {
	sum       *RunSummary
	err       error // the activity's failure, or the workflow's end
	cancelled bool
}

// Execute implements orchestrator.Executor.
func (x *Executor) Execute(ctx context.Context, run *orchestrator.PlannedRun) (*orchestrator.RunResult, error) {
	prefix := x.WorkflowPrefix
	if prefix == "" {
		prefix = "lux/"
	}
	params := x.Params
	params.Queue = x.Queue
	wr, err := x.Client.SignalWithStartWorkflow(ctx, prefix+run.Group, RunSignal, run,
		client.StartWorkflowOptions{ID: prefix + run.Group, TaskQueue: x.Queue}, RunsWorkflowName, params)
	if err != nil {
		return nil, fmt.Errorf("temporal: run %s: %w", run.Key, err)
	}
	w := x.watch(wr.GetID(), wr.GetRunID())
	done := w.slot(run.Key)
	select {
	case <-done.ch:
	case <-ctx.Done():
		// Cancel the run as a local one is cancelled: it stops and is
		// still recorded; wait for its record as long as that takes.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		_ = x.Client.SignalWorkflow(sctx, wr.GetID(), wr.GetRunID(), CancelSignal, run.Key)
		cancel()
		limit := run.Spec.CleanupTimeout + x.Params.withDefaults().HeartbeatTimeout + time.Minute
		select {
		case <-done.ch:
		case <-time.After(limit):
			return nil, fmt.Errorf("temporal: run %s: cancelled, and its record did not arrive within %s: %w", run.Key, limit, context.Cause(ctx))
		}
	}
	return x.result(ctx, run, done.out)
}

// result reads the run's record from the runs root.
func (x *Executor) result(ctx context.Context, run *orchestrator.PlannedRun, out outcome) (*orchestrator.RunResult, error) {
	if out.sum == nil || out.sum.RunID == "" {
		if out.err == nil {
			out.err = errors.New("no record")
		}
		return nil, fmt.Errorf("temporal: run %s: %w", run.Key, out.err)
	}
	dir := filepath.Join(x.RunsRoot, filepath.FromSlash(out.sum.RunID))
	meta, g, err := record.ReadMetadata(dir)
	if err != nil {
		return nil, fmt.Errorf("temporal: run %s: reading its record: %w", run.Key, err)
	}
	res := &orchestrator.RunResult{Dir: dir, Metadata: meta, Grading: g}
	if out.sum.Failure != "" {
		res.Failure = errors.New(out.sum.Failure)
	}
	switch {
	case out.cancelled:
		cause := ctx.Err()
		if cause == nil {
			cause = context.Canceled
		}
		return res, fmt.Errorf("temporal: run %s cancelled: %w", dir, cause)
	case out.sum.Error != "":
		return res, fmt.Errorf("temporal: run %s: the record is incomplete: %s", dir, out.sum.Error)
	}
	return res, nil
}

// Close stops following the workflows' histories.
func (x *Executor) Close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, w := range x.watchers {
		w.stop()
	}
}

// watch returns the watcher of a workflow run, started once.
func (x *Executor) watch(id, runID string) *watcher {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.watchers == nil {
		x.watchers = map[string]*watcher{}
	}
	if w := x.watchers[runID]; w != nil {
		return w
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{slots: map[string]*slot{}, stop: cancel}
	x.watchers[runID] = w
	go w.follow(ctx, x.Client, id, runID)
	return w
}

// watcher follows one workflow run's history and hands each run's
// outcome to whoever waits for it.
type watcher struct {
	mu     sync.Mutex
	slots  map[string]*slot
	closed error // the workflow ended: runs not ended never will here
	stop   context.CancelFunc
}

type slot struct {
	ch  chan struct{}
	out outcome
}

func (w *watcher) slot(key string) *slot {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.slots[key]
	if s == nil {
		s = &slot{ch: make(chan struct{})}
		w.slots[key] = s
		if w.closed != nil {
			s.out = outcome{err: w.closed}
			close(s.ch)
		}
	}
	return s
}

func (w *watcher) deliver(key string, out outcome) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.slots[key]
	if s == nil {
		s = &slot{ch: make(chan struct{})}
		w.slots[key] = s
	}
	select {
	case <-s.ch: // delivered already
	default:
		s.out = out
		close(s.ch)
	}
}

func (w *watcher) end(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = err
	for _, s := range w.slots {
		select {
		case <-s.ch:
		default:
			s.out = outcome{err: err}
			close(s.ch)
		}
	}
}

// follow reads the history from its start, long-polling for new events,
// until the workflow closes; a broken poll is taken up again.
func (w *watcher) follow(ctx context.Context, c client.Client, id, runID string) {
	keys := map[int64]string{} // scheduled event ID -> activity ID
	seen := int64(0)
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		it := c.GetWorkflowHistory(ctx, id, runID, true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				break
			}
			backoff = 100 * time.Millisecond
			if e.GetEventId() <= seen {
				continue
			}
			seen = e.GetEventId()
			if err, closed := w.event(e, keys); closed {
				w.end(err)
				return
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
			backoff = min(2*backoff, 5*time.Second)
		}
	}
}

// event handles one history event; closed is true when the workflow ended.
func (w *watcher) event(e *historypb.HistoryEvent, keys map[int64]string) (err error, closed bool) {
	dc := converter.GetDefaultDataConverter()
	fc := temporal.GetDefaultFailureConverter()
	switch e.GetEventType() {
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
		keys[e.GetEventId()] = e.GetActivityTaskScheduledEventAttributes().GetActivityId()
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
		a := e.GetActivityTaskCompletedEventAttributes()
		var sum RunSummary
		out := outcome{sum: &sum}
		if err := dc.FromPayloads(a.GetResult(), &sum); err != nil {
			out = outcome{err: err}
		}
		w.deliver(keys[a.GetScheduledEventId()], out)
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_FAILED:
		a := e.GetActivityTaskFailedEventAttributes()
		w.deliver(keys[a.GetScheduledEventId()], failed(fc.FailureToError(a.GetFailure())))
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
		a := e.GetActivityTaskTimedOutEventAttributes()
		w.deliver(keys[a.GetScheduledEventId()], failed(fc.FailureToError(a.GetFailure())))
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_CANCELED:
		a := e.GetActivityTaskCanceledEventAttributes()
		out := outcome{cancelled: true, err: errors.New("cancelled")}
		if sum := decodeSummary(dc, a.GetDetails()); sum != nil {
			out.sum = sum
		}
		w.deliver(keys[a.GetScheduledEventId()], out)
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
		return fmt.Errorf("the runs workflow ended (%s) before the run did", e.GetEventType()), true
	}
	return nil, false
}

func decodeSummary(dc converter.DataConverter, p *commonpb.Payloads) *RunSummary {
	if p == nil || len(p.GetPayloads()) == 0 {
		return nil
	}
	var sum RunSummary
	if dc.FromPayloads(p, &sum) != nil {
		return nil
	}
	return &sum
}

// failed is the outcome of a failed activity: a run's outcome carries
// its summary (the run is recorded, with its verdict); any other failure
// has none.
func failed(err error) outcome {
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.HasDetails() {
		var sum RunSummary
		if app.Details(&sum) == nil {
			return outcome{sum: &sum, err: err}
		}
	}
	return outcome{err: err}
}
