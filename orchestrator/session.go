package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/safecall"
	"github.com/luxeval/lux/record"
)

// loop reads the session's events until its terminal event, answering
// each interrupt (answerer, then the driver gets the answer) before the
// next event is read.
func (r *runState) loop(ctx, limit context.Context, s lux.Session, ans lux.Answerer) {
	var history []lux.Exchange
	for {
		var e lux.Event
		err := r.call(limit, fmt.Sprintf("driver %q Next", r.p.driverName), func() (err error) {
			e, err = s.Next(ctx)
			return err
		})
		if err != nil {
			switch {
			case ctx.Err() != nil:
				r.cancel(ctx, err)
			case errors.Is(err, io.EOF):
				r.fail(record.PhaseDriver, lux.ExitError, errors.New("the driver ended the session without a done or error event"))
			default:
				r.fail(record.PhaseDriver, lux.ExitError, fmt.Errorf("driver %q failed: %w", r.p.driverName, err))
			}
			return
		}
		if e.Type != lux.EventReady && e.Time.IsZero() {
			e.Time = time.Now().UTC()
		}
		if r.stopForBudget(e) {
			return
		}
		if !r.record(e) && r.failed() {
			return
		}
		switch e.Type {
		case lux.EventReady:
			if e.Ready != nil {
				r.meta.Driver.Ready = *e.Ready
			}
		case lux.EventInterrupt:
			if e.Interrupt == nil {
				r.fail(record.PhaseDriver, lux.ExitError, errors.New("driver sent an interrupt event without an interrupt"))
				return
			}
			in := *e.Interrupt
			r.meta.InterruptCounts.Add(in.Kind)
			if c := lux.Capability(in.Kind); !r.p.runtime.Has(c) {
				r.fail(record.PhaseDriver, lux.ExitError, fmt.Errorf("driver %q sent %s interrupt %q but does not declare the %q capability, so it cannot take the answer",
					r.p.driverName, in.Kind, in.ID, c))
				return
			}
			if !r.answer(ctx, limit, s, ans, in, &history) {
				return
			}
		case lux.EventDone:
			now := time.Now().UTC()
			r.meta.AgentEndedAt = &now
			if e.Done != nil {
				r.meta.Usage.Agent = e.Done.Usage
				r.meta.Usage.AgentCostUSD = e.Done.CostUSD
			}
			return
		case lux.EventError:
			o := outcome{exit: lux.ExitError, cause: agentFailure("the agent failed")}
			if e.Error != nil {
				if e.Error.ExitReason != "" {
					o.exit = e.Error.ExitReason
				}
				o.cause = agentFailure(e.Error.Reason)
				r.meta.Usage.Agent = e.Error.Usage
				r.meta.Usage.AgentCostUSD = e.Error.CostUSD
			}
			r.end(o)
			return
		}
	}
}

// answer gets the answer to in and delivers it; false ends the loop.
func (r *runState) answer(ctx, limit context.Context, s lux.Session, ans lux.Answerer, in lux.Interrupt, history *[]lux.Exchange) bool {
	if ans == nil {
		r.fail(record.PhaseAnswerer, lux.ExitError, fmt.Errorf("%w: the agent sent %s interrupt %q (%s) but the case has no answerer and no default answerer is set",
			ErrNoAnswerer, in.Kind, in.ID, clip(in.Text(), 200)))
		return false
	}
	var a lux.Answer
	err := r.call(limit, fmt.Sprintf("answerer %q Answer", r.p.answererName), func() (err error) {
		a, err = ans.Answer(ctx, in, *history)
		return err
	})
	if err != nil {
		if r.checkCancel(ctx, err) {
			return false
		}
		r.fail(record.PhaseAnswerer, lux.ExitError, fmt.Errorf("answerer %q failed on %s interrupt %q: %w", r.p.answererName, in.Kind, in.ID, err))
		return false
	}
	if err := a.Matches(in); err != nil {
		r.fail(record.PhaseAnswerer, lux.ExitError, fmt.Errorf("answerer %q: %w", r.p.answererName, err))
		return false
	}
	if !r.record(lux.Event{Type: lux.EventResponded, Time: time.Now().UTC(), Answer: &a}) && r.failed() {
		return false
	}
	*history = append(*history, lux.Exchange{Interrupt: in, Answer: a})
	if err := r.call(limit, fmt.Sprintf("driver %q Respond", r.p.driverName), func() error { return s.Respond(ctx, a) }); err != nil {
		if r.checkCancel(ctx, err) {
			return false
		}
		r.fail(record.PhaseDriver, lux.ExitError, fmt.Errorf("driver respond failed: %w", err))
		return false
	}
	return true
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// collect stops the agent's process tree, then collects its artifacts and
// writes artifacts.json.
func (r *runState) collect(ctx, limit context.Context, s lux.Session) {
	bctx, watch, cancel := r.bookkeeping(ctx, limit)
	defer cancel()
	r.stage(lux.StageCollectStart)
	var stopErr error
	if s != nil {
		stopErr = r.call(watch, fmt.Sprintf("driver %q Quiesce", r.p.driverName), func() error { return s.Quiesce(bctx) })
	}
	switch {
	case s == nil:
		r.agentGone()
	case stopErr != nil:
		// The agent may still run: its turn is kept until the session is
		// closed (the run's end).
		r.collectionFailed(ctx, fmt.Errorf("stopping the agent failed: %w", stopErr))
	default:
		r.agentGone()
		var arts []lux.Artifact
		if err := r.call(watch, fmt.Sprintf("driver %q Collect", r.p.driverName), func() (err error) {
			arts, err = s.Collect(bctx)
			return err
		}); err != nil {
			r.collectionFailed(ctx, fmt.Errorf("artifact collection failed: %w", err))
		} else if arts != nil {
			r.artifacts = arts
		}
	}
	r.keepWorkspace()
	if r.workspace == filepath.Join(r.dir, record.ArtifactsDir) {
		// The recorded workspace as collected, before grading: a change
		// to it afterwards, by anyone, is told apart.
		if t, err := record.WorkspaceTree(r.workspace); err == nil {
			r.tree = t
		} else {
			r.note(record.PhaseCollection, err)
		}
	}
	r.stage(lux.StageCollectEnd)
	sandboxAfter(r.meta, r.box)
	now := time.Now().UTC()
	if r.meta.AgentEndedAt == nil && r.started {
		r.meta.AgentEndedAt = &now
	}
	r.meta.EndedAt = now
	r.meta.ToolCalls = record.SummarizeTools(r.events)
	r.meta.Artifacts = record.ArtifactStats{Count: len(r.artifacts)}
	for _, a := range r.artifacts {
		r.meta.Artifacts.Bytes += a.Size
	}
	r.meta.Phases.Agent = ms(r.stages[lux.StageStartDriver], r.stages[lux.StageCollectStart])
	r.meta.Phases.Collect = ms(r.stages[lux.StageCollectStart], r.stages[lux.StageCollectEnd])
	if r.stderr != nil {
		r.meta.StderrTail = r.stderr.Tail()
	}
	// run.json is written once, when the record is complete (finish): a
	// directory without it is not read as a run.
	r.create(record.ArtifactsFile, r.artifacts)
}

// agentGone gives the run's turn at the agent gate back once its agent's
// process tree is stopped (Quiesce returned) or never started: the rest of
// the run is the harness's. With case hooks the turn is kept until the
// case cleanups ran (see agentGate).
func (r *runState) agentGone() {
	r.agentStopped = true
	if len(r.o.hooks) == 0 {
		r.turn.release()
	}
}

// keepWorkspace moves the agent's workspace, now that the agent is
// stopped, into the record as artifacts/. A workspace that cannot be moved
// stays where it is, for grading, and the run says so.
func (r *runState) keepWorkspace() {
	kept := filepath.Join(r.dir, record.ArtifactsDir)
	if r.live == "" || r.workspace == kept {
		return
	}
	if err := os.Rename(r.workspace, kept); err != nil {
		if !os.IsNotExist(err) {
			r.note(record.PhaseCollection, fmt.Errorf("the workspace stays at %s: %w", r.workspace, err))
			r.live = "" // keep it
		}
		return
	}
	r.workspace = kept
}

// removeLive removes what the agent was given outside the record, or
// empties it for the worker's next run.
func (r *runState) removeLive() {
	if r.live != "" {
		r.slot.give(r.live)
	}
}

// collectionFailed records that the evidence could not be collected: a
// failure of the run, or when ctx was cancelled, part of the cancellation.
func (r *runState) collectionFailed(ctx context.Context, err error) {
	r.collectFailed = true
	switch {
	case ctx.Err() != nil && !r.failed():
		r.cancel(ctx, err)
	case r.failed():
		r.note(record.PhaseCollection, err)
	default:
		r.fail(record.PhaseCollection, lux.ExitError, err)
	}
}

// grade evaluates the assertions unless the agent never ran, the run was
// cancelled or its evidence could not be collected; a run that did not end
// done never passes.
func (r *runState) grade(ctx, limit context.Context) {
	r.stage(lux.StageGradeStart)
	switch {
	case r.cancelled() || !r.started:
		no := false
		r.grading = &record.Grading{SchemaVersion: record.SchemaVersion, Passed: &no, Assertions: []record.AssertionOutcome{},
			Incomplete: &record.Incomplete{ExitReason: r.meta.ExitReason, Phase: record.PhaseRun, Reason: r.meta.Reason}}
	case r.collectFailed:
		r.grading = &record.Grading{SchemaVersion: record.SchemaVersion, Assertions: []record.AssertionOutcome{},
			Incomplete: &record.Incomplete{ExitReason: lux.ExitError, Phase: record.PhaseCollection, Reason: r.meta.Reason}}
	default:
		run := &lux.Run{Case: r.p.c, Repetition: r.meta.Repetition, Outcome: r.meta.Outcome(), Events: r.events, Artifacts: r.artifacts, Dir: r.dir, Workspace: r.workspace}
		if r.live != "" {
			// Grading writes only here (emptied or removed with the live
			// directory).
			if scratch := filepath.Join(r.live, gradingName); emptyDirAt(scratch) {
				run.Scratch = scratch
			}
		}
		rep, judge, gerr := grade(ctx, limit, r.p, run)
		r.meta.Usage.Judge = judge
		if rep.Incomplete != nil && ctx.Err() != nil {
			r.cancel(ctx, gerr)
		}
		r.grading = failUnlessDone(rep, r.meta)
	}
	r.stage(lux.StageGradeEnd)
	r.meta.Phases.Grading = ms(r.stages[lux.StageGradeStart], r.stages[lux.StageGradeEnd])
}

// finish closes the session and the answerer and writes the final record.
func (r *runState) finish(s lux.Session, ans lux.Answerer) {
	r.stage(lux.StageClose)
	var closeErrs []error
	// Close and Usage have no context: each is given CleanupTimeout.
	closing := func(what string, f func() error) error {
		watch, cancel := safecall.Within(r.o.opts.CleanupTimeout)
		defer cancel()
		return r.call(watch, what, f)
	}
	if s != nil {
		if err := closing(fmt.Sprintf("driver %q Close", r.p.driverName), s.Close); err != nil {
			closeErrs = append(closeErrs, fmt.Errorf("driver close: %w", err))
		}
	}
	if ans != nil {
		var u lux.ModelUsage
		if err := closing(fmt.Sprintf("answerer %q Usage", r.p.answererName), func() error {
			u = ans.Usage()
			return nil
		}); err != nil {
			closeErrs = append(closeErrs, fmt.Errorf("answerer usage: %w", err))
		} else {
			r.meta.Usage.Answerer = u
		}
		if err := closing(fmt.Sprintf("answerer %q Close", r.p.answererName), ans.Close); err != nil {
			closeErrs = append(closeErrs, fmt.Errorf("answerer close: %w", err))
		}
	}
	if len(closeErrs) > 0 {
		r.note(record.PhaseClose, errors.Join(closeErrs...))
	}
	if r.stderr != nil {
		if err := r.stderr.Close(); err != nil && r.writeErr == nil {
			r.writeErr = err
		}
		r.meta.StderrTail = r.stderr.Tail()
	}
	r.removeLive()
	r.meta.EndedAt = time.Now().UTC()
	r.create(record.GradingFile, r.grading)
	// The event log is complete: run.json fingerprints it as written.
	if r.log != nil {
		if err := r.log.Close(); err != nil && r.writeErr == nil {
			r.writeErr = err
		}
	}
	if ev, err := record.NewEvidence(r.log, r.artifacts); err == nil {
		if r.tree != nil {
			ev.WorkspaceSHA256, ev.WorkspaceEntries = r.tree.SHA256, r.tree.Entries
		}
		r.meta.Evidence = ev
	} else if r.writeErr == nil {
		r.writeErr = err
	}
	r.write(record.MetadataFile, r.meta)
	// The record is complete: seal it, so a change after this is refused
	// by every reader.
	if err := r.o.sealNewRun(r.dir, &record.NewRun{Events: r.log, Written: r.written}); err != nil && r.writeErr == nil {
		r.writeErr = err
	}
}
