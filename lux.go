// Package lux is the vocabulary and the contracts of lux, a library for
// evaluating coding agents. Start reading here.
//
// # What a plugin implements
//
// lux has three kinds of plugin, each a value registered in a [Registry]
// and each configured by a strict Parse (see [DecodeConfig]) that returns
// a validated config. There are five interfaces to implement, all in
// this file:
//
//   - A driver runs the agent: a [DriverPlugin] whose Parse returns a
//     [DriverConfig], whose Start returns a [Session] — the running agent,
//     which reports [Event] values and takes an [Answer] to each
//     [Interrupt]. Package driver has the process toolkit for drivers that
//     launch a program; PROTOCOL.md (at the module root) is the line
//     protocol any program can speak to the built-in subprocess driver.
//   - An answerer plays the user: an [AnswererPlugin] whose Parse returns
//     an [AnswererConfig], whose Prepare returns an [Answerer] for one run.
//   - An assertion grades a run: an [AssertionPlugin] whose Parse returns a
//     [Check], which evaluates the [Run] (the case, its events, artifacts
//     and how it ended) into a [Result]. Package assertion builds most checks
//     from a Go predicate.
//
// Package luxtest checks a plugin against its contract in one line
// (luxtest.TestDriver, TestAnswerer, TestAssertion); `lux plugins` lists
// what a binary registered, with each plugin's Doc.
//
// # The vocabulary
//
// A [Case] gives an agent a prompt and a starting workspace. A [Session]
// reports [Event] values (progress, interrupts, done or error, each run's
// [ExitReason]); [Usage] keeps the agent's, the answerer's and judges'
// tokens apart, nil when not reported. An assertion receives a [Run]: the
// case, the events, the artifacts and the run's [Outcome]. The records of a
// finished run (run.json, grading.json, their provenance) are package
// record's. [DecodeConfig] and [Problems] name every problem of a config at
// its field path.
//
// This package imports no other public package of the module: drivers,
// answerers, assertions, the orchestrator and the analysis packages all
// build on it.
package lux

import (
	"context"
	"encoding/json"
)

// Version is the version of this module, recorded in every run.
const Version = "0.1.0"

// The contracts. Everything else in this package is what they exchange.

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
	// RunVariables names the ${NAME} variables the driver expands itself
	// at each run in its config's strings (mcp-probe: ARTIFACTS_DIR,
	// RUN_DIR). The orchestrator, which expands the documented variables
	// of a driver's command, args, extraArgs and env before Parse
	// (${CASE_DIR}, ${PROJECT_DIR}) and refuses any other, leaves these
	// for the driver.
	RunVariables []string
}

// DriverConfig is a validated driver config, ready to start sessions.
type DriverConfig interface {
	// Runtime declares what Start will launch and what the agent can do.
	Runtime() Runtime
	// Start launches the agent for one run. It returns once the agent is
	// launched; its events, starting with ready, come from Session.Next.
	Start(ctx context.Context, info StartInfo) (Session, error)
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
