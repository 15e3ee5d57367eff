package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// Executor executes planned runs. By default an Orchestrator executes
// them itself, in this process; Options.Executor hands them to another
// (the Temporal adapter runs them on workers on other machines). Either
// way a run is planned, identified and recorded by an Orchestrator: an
// executor only decides where.
type Executor interface {
	// Execute executes run and returns its record, as Orchestrator.Run
	// does: Dir is under the Orchestrator's runs root. When ctx is
	// cancelled the run is stopped and still recorded (exit reason
	// cancelled), and the error wraps ctx's error.
	Execute(ctx context.Context, run *PlannedRun) (*record.Run, error)
}

// PlannedRun is one run of a validated case, as JSON: what a process with
// the same plugins registered needs to run it exactly as planned
// (ExecutePlanned), and the identity it must compute for it.
type PlannedRun struct {
	// Key names the run uniquely and stably: "<suite id>/<item>" for a
	// run of a suite, the experiment's unit key for a unit (WithRunKey).
	// Running a key twice is running one run twice.
	Key string `json:"key"`
	// Group is what the run belongs to: "suite/<id>", "experiment/<id>",
	// or the key for a run of its own.
	Group string `json:"group"`
	// Queue is where the executor sends the run (Options.Queue); empty
	// for its default.
	Queue      string `json:"queue,omitempty"`
	SuiteID    string `json:"suiteId,omitempty"`
	Repetition int    `json:"repetition,omitempty"`
	// Case is the case as authored, and its file: the file's directory
	// (fixtures, relative commands) must be at that path where it runs.
	Case record.CaseRecord `json:"case"`
	// Spec is what of the Options decides how the run runs.
	Spec RunSpec `json:"spec"`
	// Identity is the planning Orchestrator's identity of the run.
	Identity RunIdentity `json:"identity"`
}

// RunSpec is the part of Options a run depends on, as JSON.
type RunSpec struct {
	DefaultDriver   *lux.PluginRef    `json:"defaultDriver,omitempty"`
	DefaultAnswerer *lux.PluginRef    `json:"defaultAnswerer,omitempty"`
	Driver          *lux.PluginRef    `json:"driver,omitempty"`
	Answerer        *lux.PluginRef    `json:"answerer,omitempty"`
	Sandbox         sandbox.Config    `json:"sandbox"`
	Environment     json.RawMessage   `json:"environment,omitempty"`
	Harness         json.RawMessage   `json:"harness,omitempty"`
	SubjectRoot     string            `json:"subjectRoot,omitempty"`
	ProjectDir      string            `json:"projectDir,omitempty"`
	Experiment      ExperimentInfo    `json:"experiment"`
	OptionNames     map[string]string `json:"optionNames,omitempty"`
	MaxEventBytes   int64             `json:"maxEventBytes,omitempty"`
	MaxEvents       int               `json:"maxEvents,omitempty"`
	MaxStderrBytes  int64             `json:"maxStderrBytes,omitempty"`
	Fsync           bool              `json:"fsync,omitempty"`
	CleanupTimeout  time.Duration     `json:"cleanupTimeoutNs"`
	Retries         int               `json:"retries,omitempty"`
	RetryBackoff    time.Duration     `json:"retryBackoffNs"`
	RunBudget       Budget            `json:"runBudget"`
	RunTimeout      time.Duration     `json:"runTimeoutNs"`
	Hooks           []lux.PluginRef   `json:"hooks,omitempty"`
}

// Timeout is the run's wall-clock limit: the case's, else the spec's.
func (r *PlannedRun) Timeout() time.Duration {
	if r.Case.Timeout > 0 {
		return r.Case.Timeout.D()
	}
	return r.Spec.RunTimeout
}

// RunIdentity is what a run measures, as its provenance records it: the
// driver and answerer chosen and the hashes of the case, its assertions,
// the driver's and answerer's configs and the evaluator.
type RunIdentity struct {
	Driver              string `json:"driver"`
	Answerer            string `json:"answerer,omitempty"`
	DriverChosenBy      string `json:"driverChosenBy,omitempty"`
	CaseHash            string `json:"caseHash"`
	AssertionsHash      string `json:"assertionsHash"`
	DriverConfigHash    string `json:"driverConfigHash"`
	AnswererConfigHash  string `json:"answererConfigHash,omitempty"`
	EvaluatorConfigHash string `json:"evaluatorConfigHash"`
}

// IdentityMismatchError refuses a planned run whose identity, computed
// where it was to run, is not the one it was planned with: the two
// processes differ in plugins, their versions or the files they read.
type IdentityMismatchError struct {
	Key              string
	Planned, Rebuilt RunIdentity
}

func (e *IdentityMismatchError) Error() string {
	p, _ := json.Marshal(e.Planned)
	r, _ := json.Marshal(e.Rebuilt)
	return fmt.Sprintf("orchestrator: run %s: this process computes the identity %s, the run was planned as %s "+
		"(register the same plugins, at the same versions, and give it the same case files)", e.Key, r, p)
}

type runKeyKey struct{}

// WithRunKey returns ctx naming key as the PlannedRun.Key of the run
// Orchestrator.Run executes with it: an experiment's unit key, so that a
// remote executor never runs one unit twice.
func WithRunKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, runKeyKey{}, key)
}

func (p *plan) identity() RunIdentity {
	return RunIdentity{Driver: p.driverName, Answerer: p.answererName, DriverChosenBy: string(p.driverChoice.Source),
		CaseHash: p.hashes.caseHash, AssertionsHash: p.hashes.assertionsHash,
		DriverConfigHash: p.hashes.driverConfigHash, AnswererConfigHash: p.hashes.answererConfigHash,
		EvaluatorConfigHash: p.hashes.evaluatorConfigHash}
}

func (o *Orchestrator) spec() RunSpec {
	s := o.opts
	return RunSpec{DefaultDriver: s.DefaultDriver, DefaultAnswerer: s.DefaultAnswerer, Driver: s.Driver, Answerer: s.Answerer,
		Sandbox: s.Sandbox, Environment: o.env, Harness: o.harness, SubjectRoot: s.SubjectRoot, ProjectDir: s.ProjectDir,
		Experiment: s.Experiment, OptionNames: s.OptionNames, MaxEventBytes: s.MaxEventBytes, MaxEvents: s.MaxEvents,
		MaxStderrBytes: s.MaxStderrBytes, Fsync: s.Fsync, CleanupTimeout: s.CleanupTimeout, Retries: s.Retries,
		RetryBackoff: s.RetryBackoff, RunBudget: s.RunBudget, RunTimeout: s.RunTimeout, Hooks: s.Hooks}
}

// planned is p's run for info, to be executed by Options.Executor.
func (o *Orchestrator) planned(ctx context.Context, p *plan, info runInfo, item int) *PlannedRun {
	r := &PlannedRun{SuiteID: info.suiteID, Repetition: info.repetition,
		Case: record.CaseRecord{Case: *p.c, CasePath: absPath(p.c.Path)}, Spec: o.spec(), Identity: p.identity(), Queue: o.opts.Queue}
	switch key, _ := ctx.Value(runKeyKey{}).(string); {
	case info.suiteID != "":
		r.Key, r.Group = info.suiteID+"/"+strconv.Itoa(item), "suite/"+info.suiteID
	case key != "":
		r.Key = key
	default:
		r.Key = p.caseID + "/" + record.Timestamp(time.Now().UTC())
	}
	if r.Group == "" {
		r.Group = r.Key
		if id := o.opts.Experiment.ID; id != "" {
			r.Group = "experiment/" + id
		}
	}
	return r
}

// run executes p, here or by Options.Executor: the one place a suite's
// workers and Run start a run.
func (o *Orchestrator) run(ctx context.Context, p *plan, info runInfo, item int) (*record.Run, error) {
	if o.opts.Executor == nil {
		return o.attempt(ctx, p, info, nil)
	}
	return o.opts.Executor.Execute(ctx, o.planned(ctx, p, info, item))
}

// Execution is what the caller of ExecutePlanned follows of the run, and
// what it hands on of earlier attempts at it; nil is nothing.
type Execution struct {
	// OnEvent, when set, sees each event as it is recorded (it must be
	// quick).
	OnEvent func(lux.Event)
	// OnDir, when set, sees each attempt's run directory as soon as it
	// exists, before anything runs in it.
	OnDir func(dir string)
	// Lost are the run directories (absolute, or relative to the runs
	// root) of earlier attempts at the run whose process died before it
	// reported them (a lost worker): partial, without run.json, or
	// complete but never reported. They are kept as the run's first
	// attempts, under its attempts/<n>/, each listed in its run.json as
	// failed for infrastructure with cause "lost", so that the runs root
	// records the run once and loses nothing. Directories gone already,
	// outside the runs root or not named as run directories are passed
	// over.
	Lost []string
}

// ExecutePlanned executes run, planned by another process, in this one:
// an Orchestrator with opts (where records go: RunsRoot; Progress) and
// the run's Spec plans the case again through reg, refuses with an
// *IdentityMismatchError when the identity it computes is not the one
// planned, and runs it as the planning process would have. x, when not
// nil, follows the run and hands on lost attempts (see Execution).
func ExecutePlanned(ctx context.Context, reg *lux.Registry, opts Options, run *PlannedRun, x *Execution) (*record.Run, error) {
	if run == nil {
		return nil, errors.New("orchestrator: nil planned run")
	}
	s := run.Spec
	opts.DefaultDriver, opts.DefaultAnswerer, opts.Driver, opts.Answerer = s.DefaultDriver, s.DefaultAnswerer, s.Driver, s.Answerer
	opts.Sandbox, opts.SubjectRoot, opts.ProjectDir, opts.Experiment = s.Sandbox, s.SubjectRoot, s.ProjectDir, s.Experiment
	opts.Environment, opts.Harness = nil, nil
	if len(s.Environment) > 0 {
		opts.Environment = s.Environment
	}
	if len(s.Harness) > 0 {
		opts.Harness = s.Harness
	}
	opts.OptionNames, opts.MaxEventBytes, opts.MaxEvents, opts.MaxStderrBytes = s.OptionNames, s.MaxEventBytes, s.MaxEvents, s.MaxStderrBytes
	opts.Fsync = opts.Fsync || s.Fsync
	opts.CleanupTimeout, opts.Retries, opts.RetryBackoff = s.CleanupTimeout, s.Retries, s.RetryBackoff
	opts.RunBudget, opts.RunTimeout, opts.Hooks, opts.Executor = s.RunBudget, s.RunTimeout, s.Hooks, nil
	o := New(reg, opts)
	o.exec = x
	if o.envErr != nil {
		return nil, o.envErr
	}
	c := run.Case.Case
	c.Path = run.Case.CasePath
	p, err := o.plan(&c)
	if err != nil {
		return nil, err
	}
	if got := p.identity(); got != run.Identity {
		return nil, &IdentityMismatchError{Key: run.Key, Planned: run.Identity, Rebuilt: got}
	}
	if err := record.CheckRoot(o.opts.RunsRoot); err != nil {
		return nil, fmt.Errorf("orchestrator: %w", err)
	}
	o.progress(Update{Kind: RunStarted, CaseID: p.caseID, Repetition: run.Repetition, Total: 1})
	var lost []string
	if x != nil {
		lost = x.Lost
	}
	res, err := o.attempt(ctx, p, runInfo{suiteID: run.SuiteID, repetition: run.Repetition}, lost)
	o.progress(finishedUpdate(Update{CaseID: p.caseID, Repetition: run.Repetition, Total: 1, Done: 1}, res, err))
	return res, err
}
