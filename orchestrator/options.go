package orchestrator

import (
	"path/filepath"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// Options configures an Orchestrator. The zero value is ready to use: runs
// go to .lux-runs, one at a time, once each.
type Options struct {
	// RunsRoot is where run and suite records go; default ".lux-runs".
	// A relative path is made absolute against the working directory.
	RunsRoot string
	// Concurrency is how many agents of a suite run at once; default 1.
	// Runs executed here are pipelined: the next runs are prepared and
	// the last ones recorded while agents run (see RunSuite).
	Concurrency int
	// Repetitions is how many times RunSuite runs each case; default 1.
	// Repetitions share the case's canonical id and differ by index.
	Repetitions int
	// DefaultDriver runs cases that name no driver. When a case names the
	// same driver, the two configs are merged (objects key by key, the
	// case's values winning). See Choose for the whole rule.
	DefaultDriver *lux.PluginRef
	// DefaultAnswerer answers for cases that name no answerer, merged as
	// DefaultDriver is. Without any answerer, an interrupt fails the run
	// (ErrNoAnswerer).
	DefaultAnswerer *lux.PluginRef
	// Driver, when set, runs every case, whatever driver the case names:
	// it replaces the case's own, plugin and config whole (nothing of the
	// case's config is merged in), and Plan says which cases it changed.
	// A relative command path in it is relative to the working directory.
	Driver *lux.PluginRef
	// Answerer, when set, answers for every case, replacing the case's own
	// as Driver does.
	Answerer *lux.PluginRef
	// Sandbox chooses how each agent is confined (see package sandbox);
	// the zero value is the strongest level the kernel offers. A driver
	// built on driver.StartSession is confined without doing anything; the
	// level in force is in each run's provenance.
	Sandbox sandbox.Config
	// Environment declares where the agents run (a container image, a
	// machine class, ...): any JSON-encodable value, recorded verbatim in
	// every run's provenance and in the suite manifest. Runs with different
	// environments are never repetitions of one measurement.
	Environment any
	// Harness is the project-wide harness model (a harness.Config or its
	// JSON): the answerers and assertions whose plugin declares Harness
	// (persona, rubric) take from it the fields their own config does not
	// set, as harness.Inherit says.
	Harness any
	// SubjectRoot is the directory that SubjectRootToken stands for in the
	// cases (see SubjectRootToken). A case that uses the token without a
	// SubjectRoot is invalid.
	SubjectRoot string
	// Label names the suites RunSuite records (record.SuiteManifest.Label),
	// so that "label:NAME" finds the newest of them (record.ResolveSuite).
	// Runs are not labelled: a label says which suite, never what was
	// measured.
	Label string
	// ProjectDir is the project's directory, which ${PROJECT_DIR} stands
	// for in a driver's config (see VarProjectDir); the command line sets
	// it to the directory of lux.json.
	ProjectDir string
	// Experiment, when its ID is set, is recorded in every run's
	// provenance: the experiment the run is a unit of, the candidate it
	// measured and the candidate's content hash.
	Experiment ExperimentInfo
	// OptionNames says how the caller spells these options in the
	// messages that tell a user what to set: a command line maps
	// "DefaultDriver" to "-driver". An option it does not name is spelled
	// Options.<Name>.
	OptionNames map[string]string
	// Progress, when set, is told as runs and suites start and end. Calls
	// are serialized, never concurrent; keep it quick.
	Progress func(Update)
	// MaxEventBytes and MaxEvents cap each run's events.jsonl (defaults 10
	// MiB and 50,000 events). A run that reaches a cap ends in error with
	// operationalFailure phase "trace".
	MaxEventBytes int64
	MaxEvents     int
	// MaxStderrBytes caps each run's stderr.log; default 1 MiB.
	MaxStderrBytes int64
	// Fsync makes every record file durable across an operating-system
	// crash or power loss: each file is synced to disk before it is renamed
	// into place. Without it, files are still written atomically (a crash
	// of this process never leaves a half-written file), and a run costs a
	// few milliseconds less (see the package documentation).
	Fsync bool
	// CleanupTimeout bounds the work done after a run's context is
	// cancelled (stopping the agent, collecting, writing the record);
	// default 30s. A plugin call that ignores the cancellation is waited
	// for that long and then abandoned (its goroutine is left behind), so
	// that a hung plugin never holds a suite; the record names the call.
	// Close, which takes no context, is always given that long.
	CleanupTimeout time.Duration
	// Retries is how many more times a run is attempted when it failed
	// for infrastructure before the agent did anything (see
	// record.FailureInfrastructure); agent failures are never retried.
	// Default 0: every run is attempted once. With retries, run.json lists
	// every attempt (record.Metadata.Attempts).
	Retries int
	// RetryBackoff is the wait before the first retry, doubled before
	// each next one up to 8 times it; default DefaultRetryBackoff. It is
	// waited on the context's clock (internal/clock).
	RetryBackoff time.Duration
	// RunBudget is each run's budget for the cases that set none
	// (lux.Case.MaxTokens, MaxCostUSD), field by field; past it a run is
	// stopped with exit reason budget.
	RunBudget Budget
	// SuiteBudget is a suite's budget: once the runs it finished spent it
	// (agent, answerer and judges together), it starts no further run,
	// marks them skipped, records why (suite.json's stoppedBy and error)
	// and RunSuite returns ErrBudget. Runs in flight finish.
	SuiteBudget Budget
	// RunTimeout is each run's wall-clock limit when its case sets none;
	// default DefaultRunTimeout. A run past it is stopped like a cancelled
	// one and ends with exit reason timeout (its record complete, graded:
	// a run that did not end done never passes).
	RunTimeout time.Duration
	// Hooks are lifecycle hooks (plugins registered with
	// Registry.RegisterHook) around every suite and every run: set up in
	// this order, cleaned up in reverse (see lux.Hook). They are part of
	// each run's identity.
	Hooks []lux.PluginRef
	// Executor, when set, executes the runs of suites and of Run instead
	// of this process (see Executor); they are planned, identified and
	// recorded as ever, under RunsRoot, which the executor must share.
	Executor Executor
	// Queue names where Executor sends the runs (a Temporal task queue:
	// a machine class, an agent CLI version); empty for the executor's
	// default. Where a run executes is not part of its identity, and
	// this process ignores Queue when it executes the runs itself.
	Queue string
}

// DefaultRetryBackoff is the wait before a run's first retry.
const DefaultRetryBackoff = 5 * time.Second

// DefaultRunTimeout is a run's wall-clock limit when neither its case nor
// Options.RunTimeout sets one.
const DefaultRunTimeout = 30 * time.Minute

func (o Options) withDefaults() Options {
	if o.RunsRoot == "" {
		o.RunsRoot = record.DefaultRoot
	}
	// Drivers get absolute paths: an agent that changes directory, or
	// runs in its workspace, must still find its run and workspace.
	if abs, err := filepath.Abs(o.RunsRoot); err == nil {
		o.RunsRoot = abs
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	if o.Repetitions <= 0 {
		o.Repetitions = 1
	}
	if o.CleanupTimeout <= 0 {
		o.CleanupTimeout = 30 * time.Second
	}
	if o.RunTimeout <= 0 {
		o.RunTimeout = DefaultRunTimeout
	}
	if o.RetryBackoff <= 0 {
		o.RetryBackoff = DefaultRetryBackoff
	}
	o.Retries = max(o.Retries, 0)
	return o
}

// ExperimentInfo names the experiment candidate a run measures.
type ExperimentInfo struct {
	ID          string
	CandidateID string
	SubjectHash string
}

// UpdateKind says what an Update reports.
type UpdateKind string

// The kinds of update.
const (
	SuiteStarted UpdateKind = "suite-started"
	RunStarted   UpdateKind = "run-started"
	RunFinished  UpdateKind = "run-finished"
	SuiteEnded   UpdateKind = "suite-ended"
)

// Update is progress reported to Options.Progress.
type Update struct {
	Kind       UpdateKind
	SuiteDir   string // set for suite runs
	Index      int    // item index within the suite (0-based)
	Total      int    // items in the suite
	Done       int    // items finished so far
	CaseID     string
	Repetition int
	RunDir     string
	ExitReason lux.ExitReason // RunFinished
	Passed     *bool          // RunFinished: nil when ungraded
	Score      *float64       // RunFinished
	Duration   time.Duration  // RunFinished
	Verdict    record.Verdict // RunFinished: pass, fail, error, cancelled, ungraded
	Err        error          // RunFinished: the run could not be recorded or was refused
	// Metadata and Grading are the finished run's run.json and
	// grading.json (nil when it has none).
	Metadata *record.Metadata
	Grading  *record.Grading
}
