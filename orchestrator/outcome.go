package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/safecall"
	"github.com/luxeval/lux/record"
)

// outcome is how a run ended when it did not end done: decided once, by
// the first failure, whether of the harness or of the agent (see
// runState.end).
type outcome struct {
	exit lux.ExitReason
	// phase is the part of the harness that failed the run; "" when the
	// agent ended it with its own error event.
	phase record.Phase
	// cause is why; run.json's reason is its text, or for a
	// *record.TraceLimitError the reason of the event log's diagnostic
	// line.
	cause error
}

// reason is run.json's reason for the outcome.
func (o *outcome) reason() string {
	if limit, ok := o.cause.(*record.TraceLimitError); ok {
		return limit.Reason()
	}
	return o.cause.Error()
}

// failure is record.Run.Failure: the cause of a failure of the harness, nil
// when the agent ended the run.
func (o *outcome) failure() error {
	if o == nil || o.phase == "" {
		return nil
	}
	return o.cause
}

// agentFailure is the reason of an agent's error event.
type agentFailure string

func (a agentFailure) Error() string { return string(a) }

// failed reports whether the run's outcome is decided: it did not end done.
func (r *runState) failed() bool { return r.out != nil }

// cancelled reports whether the run's context was cancelled before
// anything else failed it.
func (r *runState) cancelled() bool { return r.out != nil && r.out.phase == record.PhaseCancel }

// end decides the run's outcome, unless an earlier failure did, and
// records it: run.json's exit reason and reason, its operational failure
// when the harness failed the run, the end of the agent's time, and the
// error event that ends the trajectory. It reports whether it decided.
func (r *runState) end(o outcome) bool {
	if r.out != nil {
		return false
	}
	r.out = &o
	reason := o.reason()
	r.meta.ExitReason, r.meta.Reason = o.exit, reason
	if o.phase != "" {
		r.meta.OperationalFailure = &record.OperationalFailure{Phase: o.phase, Reason: reason}
	}
	now := time.Now().UTC()
	if r.meta.AgentEndedAt == nil && r.started {
		r.meta.AgentEndedAt = &now
	}
	// The agent's own error event, or the event log's diagnostic line of
	// a breached cap, is in the trajectory already.
	if o.phase != "" && o.phase != record.PhaseTrace {
		r.record(lux.Event{Type: lux.EventError, Time: now, Error: &lux.ErrorEvent{ExitReason: o.exit, Reason: reason}})
	}
	return true
}

// fail ends the run as a failure of the harness in phase (see end).
func (r *runState) fail(phase record.Phase, exit lux.ExitReason, err error) {
	r.end(outcome{exit: exit, phase: phase, cause: err})
}

// note adds a failure of the harness that came after the run's outcome
// was decided to the operational failure run.json reports.
func (r *runState) note(phase record.Phase, err error) {
	if r.meta.OperationalFailure == nil {
		r.meta.OperationalFailure = &record.OperationalFailure{Phase: phase, Reason: err.Error()}
		return
	}
	r.meta.OperationalFailure.Reason += "; then " + string(phase) + ": " + err.Error()
}

// checkCancel records the cancellation when ctx is done; err is what the
// step it interrupted returned.
func (r *runState) checkCancel(ctx context.Context, err error) bool {
	if ctx.Err() == nil {
		return false
	}
	r.cancel(ctx, err)
	return true
}

// cancel records the end of the run's context — its time limit
// (timeout) or a cancellation (cancelled) — unless the outcome was
// decided before. A plugin call abandoned on the way (err) is named in the
// reason, or noted after the earlier failure.
func (r *runState) cancel(ctx context.Context, err error) {
	var ab *safecall.AbandonedError
	abandoned := errors.As(err, &ab)
	if r.failed() {
		if abandoned {
			r.note(record.PhaseCancel, err)
		}
		return
	}
	o := outcome{exit: lux.ExitCancelled, phase: record.PhaseCancel, cause: fmt.Errorf("run cancelled: %w", context.Cause(ctx))}
	var rt *runTimeout
	if errors.As(context.Cause(ctx), &rt) {
		o = outcome{exit: lux.ExitTimeout, phase: record.PhaseTimeout, cause: rt}
	}
	if abandoned {
		o.cause = fmt.Errorf("%w; %v", o.cause, err)
	}
	r.end(o)
}

// runTimeout is the cause of a run's context ending at its wall-clock limit.
type runTimeout struct{ limit time.Duration }

func (e *runTimeout) Error() string {
	return fmt.Sprintf("the run exceeded its %s time limit (set the case's timeout or Options.RunTimeout to allow more)", e.limit)
}
