package temporal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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
// group, as signals; each becomes one activity on the run's queue (its
// profile's, PlannedRun.Queue), else on Queue. The workers
// record the runs in the store; Execute reads the record from RunsRoot,
// the client's view of that store. It learns that a run ended by
// following the workflow's history (a long poll), never by sleeping.
type Executor struct {
	Client client.Client
	// Queue is the task queue the workflows go to, and the runs whose
	// profile names no queue of its own: a worker must serve it.
	Queue string
	// RunsRoot is where the client reads the records the workers write
	// (the shared directory's path here).
	RunsRoot string
	// Params configure the workflows this executor starts.
	Params Params
	// WorkflowPrefix prefixes the workflows' IDs; default "lux/".
	WorkflowPrefix string
	// MaxRoundsPerHistory, when positive, continues a sequential
	// experiment's workflow as new after that many rounds (see
	// ExperimentParams).
	MaxRoundsPerHistory int

	mu        sync.Mutex
	watchers  map[string]*watcher // by workflow run ID
	workflows map[string]bool     // the IDs of the workflows runs were sent to
	routes    map[string]route    // the keys of the rounds in progress (StartRounds)
}

// outcome is how a run's activity ended, as its history says.
type outcome struct {
	sum       *RunSummary
	err       error // the activity's failure, or the workflow's end
	cancelled bool
}

// Execute implements orchestrator.Executor.
func (x *Executor) Execute(ctx context.Context, run *orchestrator.PlannedRun) (*record.Run, error) {
	prefix := x.WorkflowPrefix
	if prefix == "" {
		prefix = "lux/"
	}
	params := x.Params
	params.Queue = x.Queue
	req := RunRequest{Run: *run, Request: newRequestID()}
	x.mu.Lock()
	rt, routed := x.routes[run.Key]
	x.mu.Unlock()
	if routed {
		// A unit of a round: its round's runs workflow, started by the
		// experiment workflow, runs it.
		if err := x.Client.SignalWorkflow(ctx, rt.id, "", RunSignal, req); err != nil {
			return nil, fmt.Errorf("temporal: run %s: %w", run.Key, err)
		}
	} else {
		wr, err := x.Client.SignalWithStartWorkflow(ctx, prefix+run.Group, RunSignal, req,
			client.StartWorkflowOptions{ID: prefix + run.Group, TaskQueue: x.Queue}, RunsWorkflowName, params)
		if err != nil {
			return nil, fmt.Errorf("temporal: run %s: %w", run.Key, err)
		}
		rt = route{id: wr.GetID(), runID: wr.GetRunID()}
		x.mu.Lock()
		if x.workflows == nil {
			x.workflows = map[string]bool{}
		}
		x.workflows[rt.id] = true
		x.mu.Unlock()
	}
	w := x.watch(rt.id, rt.runID)
	done := w.slot(req.Request)
	select {
	case <-done.ch:
	case <-ctx.Done():
		// Cancel the run as a local one is cancelled: it stops and is
		// still recorded; wait for its record as long as that takes.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		_ = x.Client.SignalWorkflow(sctx, rt.id, "", CancelSignal, run.Key) // the current run: it may have continued as new
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
func (x *Executor) result(ctx context.Context, run *orchestrator.PlannedRun, out outcome) (*record.Run, error) {
	if out.sum == nil || out.sum.RunID == "" {
		if out.err == nil {
			out.err = errors.New("no record")
		}
		return nil, fmt.Errorf("temporal: run %s: %w", run.Key, out.err)
	}
	dir := filepath.Join(x.RunsRoot, filepath.FromSlash(out.sum.RunID))
	res, err := record.ReadRun(dir, record.ReadOptions{Events: true})
	if err != nil {
		return nil, fmt.Errorf("temporal: run %s: reading its record: %w", run.Key, err)
	}
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

// Close tells each workflow this executor sent runs to that its client
// is done (EndSignal), so that it completes once its runs in progress
// end rather than after its idle timeout, and stops following their
// histories. Call it when the suite or the experiment has ended.
func (x *Executor) Close() {
	x.mu.Lock()
	ids := x.workflows
	x.workflows = nil
	x.mu.Unlock()
	for id := range ids {
		// The current run of the workflow: it may have continued as new.
		// One that ended already (cancelled, idle) needs no word.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = x.Client.SignalWorkflow(ctx, id, "", EndSignal, nil)
		cancel()
	}
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
	go w.follow(ctx, x.Client, id, runID, func(next string) {
		// The workflow continued as new: this watcher follows it there.
		x.mu.Lock()
		defer x.mu.Unlock()
		if x.watchers[next] == nil {
			x.watchers[next] = w
		}
	})
	return w
}

// watcher follows one workflow run's history and hands each request the
// outcome that answers it, deciding as the workflow does (see
// RunsWorkflow): a request for a key in progress is answered by that
// run's outcome, one for a key whose run ended with its record by that
// outcome, any other by the next run of the key.
type watcher struct {
	mu     sync.Mutex
	slots  map[string]*slot // by request ID
	keys   map[string]*keyWatch
	closed error  // the workflow ended: runs not ended never will here
	next   string // the run the workflow continued as, not yet followed
	stop   context.CancelFunc
}

// keyWatch is what the history says of one key.
type keyWatch struct {
	open    bool     // an activity of the key is in progress
	last    *outcome // how the last one ended
	final   bool     // with the run's record
	waiting []*slot
}

func (w *watcher) key(k string) *keyWatch {
	if w.keys == nil {
		w.keys = map[string]*keyWatch{}
	}
	kw := w.keys[k]
	if kw == nil {
		kw = &keyWatch{}
		w.keys[k] = kw
	}
	return kw
}

// requested binds request id to key k, as the workflow decides.
func (w *watcher) requested(id, k string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.slotLocked(id)
	kw := w.key(k)
	if !kw.open && kw.last != nil && kw.final {
		s.set(*kw.last)
		return
	}
	kw.waiting = append(kw.waiting, s)
}

// carried takes what a continued workflow was handed: the keys that ran
// with their record (unless this watcher saw them end itself), and the
// requests it holds, as if asked for again.
func (w *watcher) carried(p Params) {
	w.mu.Lock()
	for _, k := range p.Done {
		kw := w.key(k.Key)
		if kw.last == nil && k.Last != nil {
			out := outcome{sum: k.Last.Summary}
			if k.Last.Error != "" {
				out.err = errors.New(k.Last.Error)
			}
			kw.open, kw.last, kw.final = false, &out, true
		}
	}
	w.mu.Unlock()
	for _, req := range p.Pending {
		w.requested(req.Request, req.Run.Key)
	}
}

func (w *watcher) scheduled(k string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.key(k).open = true
}

// ended hands the outcome of k's activity to the requests waiting for it.
func (w *watcher) ended(k string, out outcome, final bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	kw := w.key(k)
	kw.open, kw.last, kw.final = false, &out, final
	for _, s := range kw.waiting {
		s.set(out)
	}
	kw.waiting = nil
}

type slot struct {
	ch  chan struct{}
	out outcome
}

// set answers the request, once.
func (s *slot) set(out outcome) {
	select {
	case <-s.ch:
	default:
		s.out = out
		close(s.ch)
	}
}

// slot returns request id's slot.
func (w *watcher) slot(id string) *slot {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.slotLocked(id)
}

func (w *watcher) slotLocked(id string) *slot {
	s := w.slots[id]
	if s == nil {
		s = &slot{ch: make(chan struct{})}
		w.slots[id] = s
		if w.closed != nil {
			s.set(outcome{err: w.closed})
		}
	}
	return s
}

func (w *watcher) end(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = err
	for _, s := range w.slots {
		s.set(outcome{err: err})
	}
}

// follow reads the history from its start, long-polling for new events,
// until the workflow closes; a broken poll is taken up again.
func (w *watcher) follow(ctx context.Context, c client.Client, id, runID string, continued func(runID string)) {
	keys := map[int64]string{} // scheduled event ID -> the run's key
	seen := int64(0)
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		if next := w.takeContinued(); next != "" {
			runID, keys, seen = next, map[int64]string{}, 0
			continued(next)
		}
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
			if w.continuedAs() != "" {
				break
			}
		}
		if w.continuedAs() != "" {
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
			backoff = min(2*backoff, 5*time.Second)
		}
	}
}

// takeContinued returns the run the workflow continued as, once, for
// follow to move there.
func (w *watcher) takeContinued() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	next := w.next
	w.next = ""
	return next
}

// continuedAs returns the run the workflow continued as, once the
// history said so, until follow moves there.
func (w *watcher) continuedAs() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.next
}

// event handles one history event; closed is true when the workflow ended.
func (w *watcher) event(e *historypb.HistoryEvent, keys map[int64]string) (err error, closed bool) {
	dc := converter.GetDefaultDataConverter()
	fc := temporal.GetDefaultFailureConverter()
	switch e.GetEventType() {
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
		a := e.GetWorkflowExecutionSignaledEventAttributes()
		var req RunRequest
		if a.GetSignalName() == RunSignal && dc.FromPayloads(a.GetInput(), &req) == nil {
			w.requested(req.Request, req.Run.Key)
		}
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
		var run orchestrator.PlannedRun
		if dc.FromPayloads(e.GetActivityTaskScheduledEventAttributes().GetInput(), &run) == nil {
			keys[e.GetEventId()] = run.Key
			w.scheduled(run.Key)
		}
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
		a := e.GetActivityTaskCompletedEventAttributes()
		var sum RunSummary
		out := outcome{sum: &sum}
		if err := dc.FromPayloads(a.GetResult(), &sum); err != nil {
			out = outcome{err: err}
		}
		w.ended(keys[a.GetScheduledEventId()], out, true)
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_FAILED:
		a := e.GetActivityTaskFailedEventAttributes()
		err := fc.FailureToError(a.GetFailure())
		w.ended(keys[a.GetScheduledEventId()], failed(err), finalOutcome(err))
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
		a := e.GetActivityTaskTimedOutEventAttributes()
		w.ended(keys[a.GetScheduledEventId()], failed(fc.FailureToError(a.GetFailure())), false)
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_CANCELED:
		a := e.GetActivityTaskCanceledEventAttributes()
		out := outcome{cancelled: true, err: errors.New("cancelled")}
		if sum := decodeSummary(dc, a.GetDetails()); sum != nil {
			out.sum = sum
		}
		w.ended(keys[a.GetScheduledEventId()], out, false)
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
		var p Params
		if dc.FromPayloads(e.GetWorkflowExecutionStartedEventAttributes().GetInput(), &p) == nil {
			w.carried(p)
		}
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
		w.mu.Lock()
		w.next = e.GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId()
		w.mu.Unlock()
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
		return fmt.Errorf("the runs workflow ended (%s) before the run did", e.GetEventType()), true
	}
	return nil, false
}

// newRequestID returns a fresh random request ID.
func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
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
