package lux

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Capability is something a driver's agent can do that a case may need.
type Capability string

// The capabilities built-in drivers declare. A driver may declare others.
const (
	CanAsk       Capability = "ask"         // puts questions to the user mid-run and continues with the answer
	CanApprove   Capability = "approve"     // asks the user to approve actions mid-run
	CanCustom    Capability = "custom"      // driver-defined interrupts
	ReportsUsage Capability = "usage"       // reports the agent's token usage
	ReportsCost  Capability = "cost"        // reports the agent's cost in USD
	ReportsTools Capability = "tool-events" // reports tool calls and their results
)

// Runtime is what a configured driver will launch and what it can do. It is
// recorded in every run's provenance and checked against a case's Requires
// before anything starts.
type Runtime struct {
	Commands     []string     // executables it launches, as configured (name or path)
	Capabilities []Capability // what it declares it can do
	Model        string       // the model it asks for, when it knows
	// InstallHint tells a user how to install the commands when they are
	// missing, e.g. "npm install -g @anthropic-ai/claude-code".
	InstallHint string
	// Versioned lists the Commands that are agent CLIs known to print
	// their version for --version (claude, codex, cursor-agent). Only they
	// are asked, and only in a sandbox (see driver.ProbeVersion); every
	// other command (a lux-jsonl agent, a script) is never run to learn
	// its version: it is identified by its content hash.
	Versioned []string
	// Scripts lists files the commands run that are not themselves the
	// executable — the agent.py of "python3 /opt/agent/agent.py" — as
	// absolute paths. Each is identified by the hash of its content (see
	// driver.Scripts), so editing the script changes every run's
	// identity, as editing an executable agent does.
	Scripts []string
}

// Has reports whether the runtime declares capability c.
func (r Runtime) Has(c Capability) bool { return slices.Contains(r.Capabilities, c) }

// Missing returns the capabilities in required that r does not declare, in order.
func (r Runtime) Missing(required []Capability) []Capability {
	var out []Capability
	for _, c := range required {
		if !r.Has(c) {
			out = append(out, c)
		}
	}
	return out
}

// CheckCapabilities returns an error wrapping ErrMissingCapability naming
// every capability in required that the driver does not declare.
func CheckCapabilities(driver string, r Runtime, required []Capability) error {
	missing := r.Missing(required)
	if len(missing) == 0 {
		return nil
	}
	names := make([]string, len(missing))
	for i, c := range missing {
		names[i] = string(c)
	}
	declared := "none"
	if len(r.Capabilities) > 0 {
		d := make([]string, len(r.Capabilities))
		for i, c := range r.Capabilities {
			d[i] = string(c)
		}
		declared = strings.Join(d, ", ")
	}
	return fmt.Errorf("%w: driver %q does not declare %s (it declares: %s)",
		ErrMissingCapability, driver, strings.Join(names, ", "), declared)
}

// DriverPlugin runs agents. It is a value: register it in a Registry.
type DriverPlugin struct {
	// Name is what cases refer to, e.g. "subprocess" or "claude-code".
	Name string
	// Doc says what the driver runs and how.
	Doc string
	// Parse decodes and validates a config strictly (see DecodeConfig):
	// unknown fields are errors and every problem is named with its field
	// path. The returned config must marshal to JSON: its hash is part of
	// every run's provenance.
	Parse func(raw json.RawMessage) (DriverConfig, error)
	// Experiment is nil for a driver that does not support controlled
	// experiments.
	Experiment *DriverExperiment
}

// DriverExperiment is a driver's support for controlled experiments.
type DriverExperiment struct {
	// Version of the driver's behaviour; never blank.
	Version string
	// Prepare turns an ordinary config into the controlled one (for
	// example: the host environment is not inherited).
	Prepare func(DriverConfig) (DriverConfig, error)
	// Identity describes what shapes the agent's behaviour (CLI versions,
	// hashes of settings and plugins) so arms with different agents are
	// never pooled. It must be JSON-encodable.
	Identity func(ctx context.Context, cfg DriverConfig, root string) (any, error)
}

// DriverConfig is a validated driver config, ready to start sessions.
type DriverConfig interface {
	// Runtime declares what Start will launch and what the agent can do.
	Runtime() Runtime
	// Start launches the agent for one run. It returns once the agent is
	// launched; its events, starting with ready, come from Session.Next.
	Start(ctx context.Context, info StartInfo) (Session, error)
}

// StartInfo is what a driver gets to start one run.
type StartInfo struct {
	CaseID string
	Prompt string
	// RunDir is a scratch directory of the run's own, for the driver and
	// the agent (LUX_RUN_DIR): empty at the start, outside the record and
	// removed after the run. The record is never where the agent can be
	// told to write.
	RunDir    string
	Workspace string // the agent's working directory, fixtures already staged; it joins the record as artifacts/ once the agent is stopped
	// CaseDir is the directory a command path in the driver's config is
	// relative to (see driver.CommandPath): the directory of the case file
	// when the case names its driver; "" (the harness's working directory)
	// for an inline case or a driver the harness supplies.
	CaseDir string
	// Stderr receives the agent's standard error; the harness keeps it in
	// the record. Never nil when the orchestrator starts a driver.
	Stderr io.Writer
}

// Session is one running agent. The orchestrator calls Next until it returns
// a terminal event; for each interrupt it calls Respond before calling Next
// again, and the agent does not continue until then (a driver pauses its
// idle clock while an answer is outstanding). Then it calls Quiesce, Collect
// and Close, in that order; Close is always called.
type Session interface {
	// Next returns the next event. After the terminal event (done or error)
	// it returns io.EOF. A cancelled ctx returns ctx.Err() and leaves the
	// agent to Quiesce.
	Next(ctx context.Context) (Event, error)
	// Respond delivers the answer to the outstanding interrupt.
	Respond(ctx context.Context, a Answer) error
	// Quiesce stops the agent's whole process tree; evidence is collected
	// only after it returns. Safe to call more than once.
	Quiesce(ctx context.Context) error
	// Collect returns the artifacts in the workspace, never following symlinks.
	Collect(ctx context.Context) ([]Artifact, error)
	// Close releases everything the session holds.
	Close() error
}

// AnswererPlugin plays the user: it answers the agent's interrupts.
type AnswererPlugin struct {
	Name  string
	Doc   string
	Parse func(raw json.RawMessage) (AnswererConfig, error)
	// Harness reports that the config takes the harness model's fields
	// (package harness: provider, model, ...), which the orchestrator fills
	// from its project-wide harness model where the config sets none.
	Harness bool
}

// AnswererConfig is a validated answerer config.
type AnswererConfig interface {
	// Prepare returns an answerer for one run.
	Prepare(ctx context.Context, info AnswererInfo) (Answerer, error)
}

// AnswererInfo is what an answerer knows about the run it answers for.
type AnswererInfo struct {
	CaseID  string
	Prompt  string
	Persona string
	RunDir  string
}

// Exchange is one interrupt and the answer it got.
type Exchange struct {
	Interrupt Interrupt `json:"interrupt"`
	Answer    Answer    `json:"answer"`
}

// Answerer answers the interrupts of one run.
type Answerer interface {
	// Answer returns the answer to in, of the same kind and id, in bounded
	// time. history holds the earlier exchanges of the run. An error fails
	// the run.
	Answer(ctx context.Context, in Interrupt, history []Exchange) (Answer, error)
	// Usage is what the answerer spent on model calls, kept apart from
	// the agent's; zero for an answerer that uses no model.
	Usage() ModelUsage
	Close() error
}

// AssertionPlugin grades runs: one assertion type.
type AssertionPlugin struct {
	// Type is what assertion specs refer to, e.g. "file-exists".
	Type    string
	Doc     string
	Version string // changes when the plugin's grading changes
	// Parse decodes and validates the assertion's own config strictly (the
	// spec's fields other than id, type, name, weight and threshold).
	Parse func(raw json.RawMessage) (Check, error)
	// Harness reports that the config takes the harness model's fields,
	// as for AnswererPlugin.Harness.
	Harness bool
	// DefaultThreshold is the threshold of a spec that sets none: the
	// lowest score that passes (0: the check's own verdict decides).
	DefaultThreshold float64
}

// Check is a configured assertion, ready to evaluate runs.
type Check interface {
	// Evaluate grades the run. A failed check is a Result with Passed
	// false; an error means the run could not be graded, which leaves the
	// case without a verdict.
	Evaluate(ctx context.Context, run *Run) (Result, error)
}

// CheckFunc adapts a function to Check.
type CheckFunc func(ctx context.Context, run *Run) (Result, error)

// Evaluate calls f.
func (f CheckFunc) Evaluate(ctx context.Context, run *Run) (Result, error) { return f(ctx, run) }

// Result is an assertion's verdict on a run.
type Result struct {
	Passed  bool
	Score   float64 // in [0,1]
	Comment string
	Detail  any         // evidence: what was found, JSON-encodable
	Usage   *ModelUsage // what a model-graded assertion's judge spent
}

// Pass returns a passing result with score 1.
func Pass(comment string, detail any) Result {
	return Result{Passed: true, Score: 1, Comment: comment, Detail: detail}
}

// Fail returns a failing result with score 0.
func Fail(comment string, detail any) Result {
	return Result{Passed: false, Score: 0, Comment: comment, Detail: detail}
}
