package temporal

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// The error types of the run activity's failures. A run the agent
// finished, whatever its verdict, is the run's outcome: it fails the
// activity as a non-retryable application error of type ErrRunOutcome,
// with the RunSummary as its details, and is never run again. The
// others say why no complete record could be made.
const (
	// ErrRunOutcome: the run ended with a verdict other than pass or
	// ungraded (fail, error); its record is complete. Not retried.
	ErrRunOutcome = "LuxRunOutcome"
	// ErrIdentityMismatch: the worker computes another identity for the
	// run than the one it was planned with (see
	// orchestrator.IdentityMismatchError). Not retried.
	ErrIdentityMismatch = "LuxIdentityMismatch"
	// ErrInvalidCase: the worker refuses the case. Not retried.
	ErrInvalidCase = "LuxInvalidCase"
	// ErrInfrastructure: the worker could not record the run (the runs
	// root unusable, the record incomplete, the store unreachable).
	// Retried, on any worker of the queue.
	ErrInfrastructure = "LuxInfrastructure"
)

// RunSummary is what the run activity returns: where the run's record is
// and what it says, never its events or transcripts, which stay in the
// record (Temporal's payloads are limited to 2 MB).
type RunSummary struct {
	Key string `json:"key"`
	// RunID is the run's directory relative to the runs root.
	RunID      string         `json:"runId"`
	Verdict    record.Verdict `json:"verdict"`
	ExitReason lux.ExitReason `json:"exitReason"`
	Reason     string         `json:"reason,omitempty"`
	// Passed and Score are the run's grading (nil when ungraded): what a
	// sequential rule reads of it.
	Passed *bool    `json:"passed,omitempty"`
	Score  *float64 `json:"score,omitempty"`
	// Failure is why the harness failed the run, when it did.
	Failure string `json:"failure,omitempty"`
	// Error says why the record is incomplete, when it is.
	Error  string `json:"error,omitempty"`
	Worker string `json:"worker,omitempty"` // the worker's identity
}

// Heartbeat is the run activity's heartbeat details.
type Heartbeat struct {
	EventsSeen  int       `json:"eventsSeen"`
	LastEventAt time.Time `json:"lastEventAt,omitzero"`
	// RunDirs are the run directories (relative to the runs root) this
	// attempt made, after those of earlier attempts lost with their
	// worker that it took over: the next attempt, when this one is lost
	// too, keeps them all under its run (orchestrator.Execution.Lost).
	RunDirs []string `json:"runDirs,omitempty"`
}

// Activities holds the run activity of a worker.
type Activities struct {
	// Registry holds the plugins the runs are rebuilt with: the same the
	// planning process registered.
	Registry *lux.Registry
	// Store is where the runs are recorded.
	Store Store
	// Options are this worker's own options (Fsync, Progress, ...); the
	// run's planned options and RunsRoot (the store's) replace the rest.
	Options orchestrator.Options
	// HeartbeatEvery is how often a run in progress heartbeats; default
	// a third of the activity's heartbeat timeout.
	HeartbeatEvery time.Duration
	// Identity names this worker in each run's summary (host:pid, say).
	Identity string

	heartbeat func(ctx context.Context, details ...any) // activity.RecordHeartbeat; tests see the beats
}

// Run executes one whole planned run: stage the workspace, run the agent,
// collect, grade and record it in the store. The activity heartbeats
// while the agent runs (events seen, last event time), and as soon as
// the run's directory exists, with its path; when it is cancelled the
// run is stopped (the agent's process tree with it) and still recorded,
// and the activity reports it cancelled with its summary. An attempt
// that follows one lost with its worker keeps the lost one's partial
// directories, which the last heartbeat named, as the run's first
// attempts (under its attempts/).
func (a *Activities) Run(ctx context.Context, run orchestrator.PlannedRun) (*RunSummary, error) {
	info := activity.GetInfo(ctx)
	every := a.HeartbeatEvery
	if every <= 0 {
		every = info.HeartbeatTimeout / 3
	}
	if every <= 0 {
		every = 10 * time.Second
	}
	var (
		mu sync.Mutex
		hb Heartbeat
	)
	if activity.HasHeartbeatDetails(ctx) {
		var prev Heartbeat
		if err := activity.GetHeartbeatDetails(ctx, &prev); err == nil {
			hb.RunDirs = prev.RunDirs // lost with the worker before
		}
	}
	lost := slices.Clone(hb.RunDirs)
	details := func() Heartbeat {
		mu.Lock()
		defer mu.Unlock()
		d := hb
		d.RunDirs = slices.Clone(hb.RunDirs)
		return d
	}
	beat := a.heartbeat
	if beat == nil {
		beat = activity.RecordHeartbeat
	}
	hbCtx, stopHB := context.WithCancel(ctx)
	var hbDone sync.WaitGroup
	hbDone.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-hbCtx.Done():
				return
			case <-t.C:
				beat(ctx, details())
			}
		}
	})
	opts := a.Options
	opts.RunsRoot = a.Store.Root()
	res, err := orchestrator.ExecutePlanned(ctx, a.Registry, opts, &run, &orchestrator.Execution{
		Lost: lost,
		OnDir: func(dir string) {
			// Usually the first heartbeat, which goes out at once (the
			// SDK batches the later ones): should this worker die now,
			// the next attempt knows the directory it leaves.
			if rel, err := filepath.Rel(opts.RunsRoot, dir); err == nil {
				mu.Lock()
				hb.RunDirs = append(hb.RunDirs, filepath.ToSlash(rel))
				mu.Unlock()
			}
			beat(ctx, details())
		},
		OnEvent: func(e lux.Event) {
			mu.Lock()
			hb.EventsSeen++
			hb.LastEventAt = e.Time
			if hb.LastEventAt.IsZero() {
				hb.LastEventAt = time.Now().UTC()
			}
			mu.Unlock()
		},
	})
	stopHB()
	hbDone.Wait()
	beat(ctx, details())
	return a.outcome(ctx, &run, res, err, a.Identity)
}

// outcome turns ExecutePlanned's result into the activity's, by error
// class (see the Err* types).
func (a *Activities) outcome(ctx context.Context, run *orchestrator.PlannedRun, res *record.Run, err error, worker string) (*RunSummary, error) {
	var mismatch *orchestrator.IdentityMismatchError
	switch {
	case errors.As(err, &mismatch):
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), ErrIdentityMismatch, nil)
	case res == nil && errors.Is(err, lux.ErrInvalidCase):
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), ErrInvalidCase, nil)
	case res == nil:
		if err == nil {
			err = errors.New("no result")
		}
		return nil, temporal.NewApplicationError(fmt.Sprintf("temporal: run %s: %v", run.Key, err), ErrInfrastructure)
	}
	sum := &RunSummary{Key: run.Key, Verdict: record.RunVerdict(res.Metadata, res.Grading), ExitReason: res.Metadata.ExitReason,
		Reason: res.Metadata.Reason, Worker: worker}
	if rel, rerr := filepath.Rel(a.Store.Root(), res.Dir); rerr == nil {
		sum.RunID = filepath.ToSlash(rel)
	}
	if res.Grading != nil {
		sum.Passed, sum.Score = res.Grading.Passed, res.Grading.Score
	}
	if res.Failure != nil {
		sum.Failure = res.Failure.Error()
	}
	if ctx.Err() != nil && res.Metadata.ExitReason == lux.ExitCancelled {
		return nil, temporal.NewCanceledError(sum)
	}
	if err != nil { // the record is incomplete: run it again
		sum.Error = err.Error()
		return nil, temporal.NewApplicationErrorWithOptions(fmt.Sprintf("temporal: run %s: %v", run.Key, err), ErrInfrastructure,
			temporal.ApplicationErrorOptions{Details: []any{sum}})
	}
	if perr := a.Store.Publish(ctx, sum.RunID); perr != nil {
		sum.Error = perr.Error()
		return nil, temporal.NewApplicationErrorWithOptions(fmt.Sprintf("temporal: run %s: %v", run.Key, perr), ErrInfrastructure,
			temporal.ApplicationErrorOptions{Details: []any{sum}})
	}
	switch sum.Verdict {
	case record.VerdictPass, record.VerdictUngraded:
		return sum, nil
	}
	msg := fmt.Sprintf("run %s: %s (%s)", sum.RunID, sum.Verdict, sum.ExitReason)
	if sum.Reason != "" {
		msg += ": " + sum.Reason
	}
	return nil, temporal.NewApplicationErrorWithOptions(msg, ErrRunOutcome,
		temporal.ApplicationErrorOptions{NonRetryable: true, Details: []any{sum}})
}
