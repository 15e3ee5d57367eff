package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/clock"
	"github.com/luxeval/lux/internal/safecall"
	"github.com/luxeval/lux/internal/setup"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// Run runs one case: it validates the case (nothing starts when it is
// invalid or the driver lacks a required capability), stages a fresh
// workspace with the fixtures, prepares the answerer, starts the driver,
// answers each interrupt before the agent continues, stops the agent after
// its terminal event, collects the artifacts, grades, and closes
// everything. The record is complete whatever happens to the agent.
//
// The error is non-nil when the case is invalid (no record), when the
// record could not be written (the result says what is known), or when
// ctx was cancelled: then the result is complete, with exit reason
// cancelled, and the error wraps ctx's error.
func (o *Orchestrator) Run(ctx context.Context, c *lux.Case) (*record.Run, error) {
	if o.envErr != nil {
		return nil, o.envErr
	}
	p, err := o.plan(c)
	if err != nil {
		return nil, err
	}
	if err := record.CheckRoot(o.opts.RunsRoot); err != nil {
		return nil, fmt.Errorf("orchestrator: %w", err)
	}
	o.progress(Update{Kind: RunStarted, CaseID: p.caseID, Total: 1})
	res, err := o.run(ctx, p, runInfo{}, 0)
	o.progress(finishedUpdate(Update{CaseID: p.caseID, Total: 1, Done: 1}, res, err))
	return res, err
}

func finishedUpdate(u Update, res *record.Run, err error) Update {
	u.Kind, u.Err, u.Verdict = RunFinished, err, finishedVerdict(res, err)
	if res != nil {
		u.RunDir, u.ExitReason, u.Duration = res.Dir, res.Metadata.ExitReason, res.Metadata.Duration()
		u.Metadata, u.Grading = res.Metadata, res.Grading
		if res.Grading != nil {
			u.Passed, u.Score = res.Grading.Passed, res.Grading.Score
		}
	}
	return u
}

// recordFailed reports whether err, returned by execute with res, says the
// run's record could not be written (rather than that it was cancelled).
func recordFailed(res *record.Run, err error) bool {
	return err != nil && (res == nil || !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded))
}

// finishedVerdict is the verdict of a run execute returned: a run whose
// record could not be written completely has none, whatever its grading
// said, as the evidence for it is not on disk.
func finishedVerdict(res *record.Run, err error) record.Verdict {
	if res == nil || recordFailed(res, err) {
		return record.VerdictError
	}
	return record.RunVerdict(res.Metadata, res.Grading)
}

type runInfo struct {
	suiteID    string
	repetition int
	slot       *liveSlot // the worker's live directory; nil: one of the run's own
	turn       *turn     // the run's turn at the suite's agent gate; nil: none
	started    func()    // when set, called as the run starts (it has its turn)
}

// runState is one run in progress.
type runState struct {
	o         *Orchestrator
	p         *plan
	dir       string
	workspace string // the agent's workspace: under live while it runs, then <dir>/artifacts
	live      string // what the agent is given while it runs, outside the record
	scratch   string // the agent's scratch directory (LUX_RUN_DIR), under live
	slot      *liveSlot
	turn      *turn        // given back once the agent is gone (agentGone)
	box       *sandbox.Run // the agent's sandbox, once the driver is started
	meta      *record.Metadata
	log       *record.EventLog
	stderr    *record.StderrLog
	events    []lux.Event
	stages    map[lux.Stage]time.Time
	artifacts []lux.Artifact
	grading   *record.Grading

	budget        *runBudget // nil: the run has no budget
	started       bool       // the driver started: there is a session
	out           *outcome   // nil while the run may still end done
	collectFailed bool
	agentStopped  bool              // the agent's process tree is gone, or never started
	prepared      bool              // prepare made the record's first files and the workspace
	tree          *record.Tree      // the recorded workspace's fingerprint, taken once collected
	written       map[string]string // the SHA-256 of each record file as the harness last wrote it
	writeErr      error
	hooks         *setup.Teardown // the case-level hooks set up
}

func (o *Orchestrator) execute(ctx context.Context, p *plan, info runInfo) (*record.Run, error) {
	start := time.Now().UTC()
	dir, err := record.ReserveRunDir(o.opts.RunsRoot, p.caseID, p.driverName, start)
	if err != nil {
		return nil, fmt.Errorf("orchestrator: %w", err)
	}
	if x := o.exec; x != nil && x.OnDir != nil {
		x.OnDir(dir)
	}
	runID := dir
	if rel, err := filepath.Rel(o.opts.RunsRoot, dir); err == nil {
		runID = filepath.ToSlash(rel)
	}
	r := &runState{
		o: o, p: p, dir: dir, slot: info.slot, turn: info.turn,
		stages: make(map[lux.Stage]time.Time, 8), artifacts: []lux.Artifact{}, budget: o.newRunBudget(p),
		meta: &record.Metadata{
			SchemaVersion: record.SchemaVersion, LuxVersion: lux.Version, RunID: runID, CaseID: p.caseID,
			SuiteID: info.suiteID, Repetition: info.repetition, StartedAt: start, ExitReason: lux.ExitDone,
			Driver:   record.DriverInfo{Name: p.driverName, Ready: lux.Ready{AgentID: "not-started"}},
			Answerer: record.RunAnswerer{Name: p.answererName},
			Provenance: record.Provenance{
				Host: hostInfo(), Environment: o.env,
				CaseHash: p.hashes.caseHash, AssertionsHash: p.hashes.assertionsHash,
				DriverConfigHash: p.hashes.driverConfigHash, AnswererConfigHash: p.hashes.answererConfigHash,
				DriverChosenBy:      string(p.driverChoice.Source),
				EvaluatorConfigHash: p.hashes.evaluatorConfigHash,
				ExperimentID:        o.opts.Experiment.ID, CandidateID: o.opts.Experiment.CandidateID,
				SubjectHash: o.opts.Experiment.SubjectHash,
			},
		},
	}
	// The run is prepared, then waits for its turn (see agentGate): it
	// starts once it has it, and not at all when ctx ends first. A driver
	// that starts its agent at the sandbox's gate (see GatedStarter) is
	// started before the turn, its agent held at the gate until the turn
	// comes (see startGate).
	r.prepare(ctx)
	var gate *startGate
	if r.gatedStart(info.turn) {
		gate = &startGate{ctx: ctx, turn: info.turn}
	} else {
		if err := info.turn.acquire(ctx); err != nil {
			r.discard()
			return nil, errNotStarted
		}
		r.startNow(time.Now().UTC(), info)
	}
	// limit bounds the wait for plugin calls that ignore ctx's cancellation.
	limit, release := safecall.After(ctx, o.opts.CleanupTimeout)
	defer release()
	// The run's wall-clock limit covers setup and the agent; collecting,
	// grading and the record are done after it, with ctx. It runs from
	// the run's start: at its gate, when it has one.
	timeout := o.opts.RunTimeout
	if p.c.Timeout > 0 {
		timeout = p.c.Timeout.D()
	}
	var runCtx context.Context
	var stopClock context.CancelFunc
	if gate != nil {
		runCtx, gate.startClock, stopClock = clock.WithDeferredTimeout(ctx, timeout, &runTimeout{limit: timeout})
	} else {
		runCtx, stopClock = clock.WithTimeoutCause(ctx, timeout, &runTimeout{limit: timeout})
	}
	defer stopClock()
	runLimit, releaseRun := safecall.After(runCtx, o.opts.CleanupTimeout)
	defer releaseRun()
	if gate != nil {
		gate.onStart = func(t time.Time) { r.startNow(t, info) }
	}
	session, answerer := r.begin(runCtx, runLimit, gate)
	if started, refused := gate.outcome(); !started {
		if refused || ctx.Err() != nil {
			// Stopped before its agent was let go (while it waited for its
			// turn, the sandbox then killed it): it leaves no record, as a
			// run stopped before its start does.
			if answerer != nil {
				_ = r.call(limit, fmt.Sprintf("answerer %q Close", r.p.answererName), answerer.Close)
			}
			r.discard()
			return nil, errNotStarted
		}
		// It failed before its driver's start (its answerer): it is
		// recorded, once it has its turn.
		_ = info.turn.acquire(ctx)
		r.startNow(time.Now().UTC(), info)
	}
	if session != nil {
		r.loop(runCtx, runLimit, session, answerer)
	}
	r.collect(ctx, limit, session)
	r.grade(ctx, limit)
	r.cleanupHooks()
	if r.agentStopped {
		r.turn.release()
	}
	r.finish(session, answerer)
	r.turn.release()

	res := &record.Run{Dir: dir, Case: &record.CaseRecord{Case: *r.p.c, CasePath: r.p.c.Path}, Metadata: r.meta, Grading: r.grading,
		Artifacts: r.artifacts, Events: r.events, Failure: r.out.failure()}
	switch {
	case r.writeErr != nil:
		return res, fmt.Errorf("orchestrator: run %s: the record is incomplete: %w", dir, r.writeErr)
	case r.cancelled():
		return res, fmt.Errorf("orchestrator: run %s cancelled: %w", dir, context.Cause(ctx))
	}
	return res, nil
}

// prepare opens the record, stages the workspace and identifies what the
// run will run (its provenance): what a run needs before it starts, done
// before it has its turn. A failure fails the run (begin then starts
// nothing).
func (r *runState) prepare(ctx context.Context) {
	var err error
	if r.log, err = record.CreateEventLog(filepath.Join(r.dir, record.EventsFile), r.o.logOpts); err != nil {
		r.fail(record.PhaseSetup, lux.ExitError, err)
		return
	}
	r.stderr = record.NewStderrLog(filepath.Join(r.dir, record.StderrFile), r.o.opts.MaxStderrBytes)
	r.create(record.CaseFile, &record.CaseRecord{Case: *r.p.c, CasePath: r.p.c.Path})
	// The agent works outside the record: it is never told where the
	// record is, and its workspace joins the record once it is stopped.
	// The key exists before the run's record does (see record.VerifySeal).
	_, _ = r.o.sealKey()
	if r.live, err = r.slot.take(r.o.opts.RunsRoot); err != nil {
		r.workspace = filepath.Join(r.dir, record.ArtifactsDir)
		r.fail(record.PhaseSetup, lux.ExitError, fmt.Errorf("create workspace: %w", err))
		return
	}
	r.workspace, r.scratch = filepath.Join(r.live, workspaceName), filepath.Join(r.live, scratchName)
	if err := os.Mkdir(r.workspace, record.DirPerm); err != nil {
		r.fail(record.PhaseSetup, lux.ExitError, fmt.Errorf("create workspace: %w", err))
		return
	}
	if r.p.fixturesDir != "" {
		h, err := stageFixtures(r.p.fixturesDir, r.workspace)
		if err != nil {
			r.fail(record.PhaseSetup, lux.ExitError, err)
			return
		}
		r.meta.Provenance.FixturesHash = h
	}
	r.meta.Provenance.Runtime = r.o.runtimeInfo(ctx, r.p)
	r.meta.Provenance.Source = r.o.prov.source(ctx, r.p.c.Path)
	r.prepared = true
}

// discard removes a prepared run that never started: its directory (the
// empty directories above it too) and what its agent was given under
// .live. It leaves no record.
func (r *runState) discard() {
	if r.log != nil {
		_ = r.log.Close()
	}
	if r.stderr != nil {
		_ = r.stderr.Close()
	}
	_ = os.RemoveAll(r.dir)
	if parent := filepath.Dir(r.dir); os.Remove(parent) == nil {
		_ = os.Remove(filepath.Dir(parent)) // only when empty
	}
	r.removeLive()
}

// begin runs the case setups, prepares the answerer and starts the
// driver, once the run is prepared and started. A nil session means the
// agent never started.
func (r *runState) begin(ctx, limit context.Context, gate *startGate) (lux.Session, lux.Answerer) {
	if !r.prepared {
		return nil, nil
	}
	var err error
	if r.checkCancel(ctx, nil) || !r.setupHooks(ctx) {
		return nil, nil
	}

	var answerer lux.Answerer
	if r.p.answerer != nil {
		r.stage(lux.StagePrepareAnswerer)
		err = r.call(limit, fmt.Sprintf("answerer %q Prepare", r.p.answererName), func() (err error) {
			answerer, err = r.p.answerer.Prepare(ctx, lux.AnswererInfo{
				CaseID: r.p.caseID, Prompt: r.p.c.Prompt, Persona: r.p.c.Persona, RunDir: r.dir,
			})
			return err
		})
		if err != nil || answerer == nil {
			if r.checkCancel(ctx, err) {
				return nil, nil
			}
			if err == nil {
				err = errors.New("the answerer plugin returned no answerer")
			}
			r.fail(record.PhaseAnswerer, lux.ExitError, fmt.Errorf("answerer %q failed to prepare: %w", r.p.answererName, err))
			return nil, nil
		}
	}
	if r.checkCancel(ctx, nil) {
		return nil, answerer
	}
	if gate == nil {
		r.stage(lux.StageStartDriver) // else once the gate is passed
	}
	var session lux.Session
	box := r.sandbox()
	if gate != nil {
		box.Gate = gate.pass
	}
	r.box = box
	err = r.call(limit, fmt.Sprintf("driver %q Start", r.p.driverName), func() (err error) {
		session, err = r.p.driver.Start(sandbox.WithRun(ctx, box), lux.StartInfo{
			CaseID: r.p.caseID, Prompt: r.p.c.Prompt, RunDir: r.scratch, Workspace: r.workspace, Stderr: r.stderr,
			CaseDir: r.p.caseDir, TempDir: filepath.Join(r.live, driverTempName),
		})
		return err
	})
	if gate != nil {
		if !gate.settle(session != nil) {
			return nil, answerer // refused: see execute
		}
		r.stageAt(lux.StageStartDriver, r.meta.StartedAt)
	}
	if err != nil || session == nil {
		if r.checkCancel(ctx, err) {
			return nil, answerer
		}
		if err == nil {
			err = errors.New("the driver returned no session")
		}
		r.meta.Driver.AgentID = "start-failed"
		r.meta.Provenance.Sandbox = sandboxInfo(box)
		r.fail(record.PhaseDriver, lux.ExitError, fmt.Errorf("driver %q failed to start: %w", r.p.driverName, err))
		return nil, answerer
	}
	r.started = true
	r.meta.Provenance.Sandbox = sandboxInfo(box)
	if err := requireSandbox(box, r.p.driverName); err != nil {
		_ = session.Close()
		r.fail(record.PhaseDriver, lux.ExitError, err)
		return nil, answerer
	}
	return session, answerer
}

// record appends e to the trajectory, on disk and in memory. A breached
// cap fails the run in phase "trace"; an event that does not encode as
// JSON fails it as a fault of the plugin that made it.
func (r *runState) record(e lux.Event) bool {
	if r.log == nil {
		return false
	}
	err := r.log.Append(e)
	if err == nil {
		if r.log.Exceeded() == nil {
			r.events = append(r.events, e)
		}
		if x := r.o.exec; x != nil && x.OnEvent != nil {
			x.OnEvent(e)
		}
		return true
	}
	var limit *record.TraceLimitError
	if errors.As(err, &limit) {
		// The log wrote its diagnostic line as its last: the trajectory
		// ends with it, whatever failed the run before.
		r.events = append(r.events, lux.Event{Type: lux.EventError, Time: time.Now().UTC(),
			Error: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: limit.Reason()}})
		r.fail(record.PhaseTrace, lux.ExitError, limit)
		return false
	}
	var bad *record.UnencodableError
	if errors.As(err, &bad) {
		// A plugin's value that cannot be recorded fails the run, and
		// nothing of it enters the record.
		if e.Type == lux.EventResponded {
			r.fail(record.PhaseAnswerer, lux.ExitError, fmt.Errorf("answerer %q: its answer's responded event does not encode as JSON: %s", r.p.answererName, bad.Detail))
		} else {
			r.fail(record.PhaseDriver, lux.ExitError, fmt.Errorf("driver %q: its %s event does not encode as JSON: %s", r.p.driverName, e.Type, bad.Detail))
		}
		return false
	}
	if r.writeErr == nil {
		r.writeErr = err
	}
	return false
}

func (r *runState) stage(s lux.Stage) { r.stageAt(s, time.Now().UTC()) }

// stageAt records that the run reached stage s at t.
func (r *runState) stageAt(s lux.Stage, t time.Time) {
	if _, seen := r.stages[s]; !seen {
		r.stages[s] = t
	}
	r.record(lux.Event{Type: lux.EventLifecycle, Time: t, Stage: s})
}

// startNow marks the run started at t: its startedAt, time limit and
// durations hold neither its preparation nor the wait for its turn (the
// directory's name is when it was prepared).
func (r *runState) startNow(t time.Time, info runInfo) {
	r.meta.StartedAt = t
	if info.started != nil {
		info.started()
	}
}

// write replaces one JSON file of the record atomically (run.json, the
// file that makes the directory a run, written last); a failure is kept
// for Run's error.
func (r *runState) write(name string, v any) {
	sum, err := r.o.writer.WriteJSONSum(filepath.Join(r.dir, name), v)
	r.keep(name, sum, err)
}

// create writes a JSON file of the record that is written once and read
// only once run.json is there (see record.Writer.CreateJSONSum): in place,
// without a temporary file and a rename.
func (r *runState) create(name string, v any) {
	sum, err := r.o.writer.CreateJSONSum(filepath.Join(r.dir, name), v)
	r.keep(name, sum, err)
}

// keep notes the outcome of writing the record file name: its SHA-256, to
// seal, or the first failure.
func (r *runState) keep(name, sum string, err error) {
	if err != nil && r.writeErr == nil {
		r.writeErr = err
	}
	if err == nil {
		if r.written == nil {
			r.written = map[string]string{}
		}
		r.written[name] = sum // sealed as written (see record.NewRun)
	}
}

// bookkeeping returns the context for the work that follows the agent,
// and the context bounding the wait for the plugin calls made with it:
// ctx and limit, or once ctx is cancelled, a fresh context bounded by
// CleanupTimeout (both) so that the record is still completed.
func (r *runState) bookkeeping(ctx, limit context.Context) (bctx, watch context.Context, cancel context.CancelFunc) {
	if ctx.Err() == nil {
		return ctx, limit, func() {}
	}
	d := r.o.opts.CleanupTimeout
	bctx, cancel = context.WithTimeoutCause(context.WithoutCancel(ctx), d,
		fmt.Errorf("did not return within the %s allowed for cleanup after the cancellation", d))
	return bctx, bctx, cancel
}

func ms(from, to time.Time) int64 {
	if from.IsZero() || to.IsZero() || to.Before(from) {
		return 0
	}
	return to.Sub(from).Milliseconds()
}
