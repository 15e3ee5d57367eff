// Package lux is the vocabulary of lux, a library for evaluating coding
// agents: cases, events, usage, provenance, run records, and the contracts
// of the three kinds of plugin. Start reading here.
//
// A [Case] gives an agent a prompt and a starting workspace (case.go). A
// driver ([DriverPlugin], plugin.go) runs the agent — a real CLI as a
// subprocess, or any program speaking the lux line protocol (see
// PROTOCOL.md at the module root) — and reports what it does as [Event]
// values through a [Session] (event.go). An answerer ([AnswererPlugin])
// plays the user when the agent asks a question or needs approval.
// Assertions ([AssertionPlugin]) grade the artifacts and the trajectory
// into a [GradingReport]. A [Registry] holds the plugins (registry.go);
// the orchestrator package runs cases through it and keeps every piece of
// evidence on disk as [RunMetadata] (run.json) and the rest of a run
// record (run.go), whose [Provenance] decides what two runs can be
// compared with.
//
// The central vocabulary, by file:
//
//   - case.go: [Case], [PluginRef], [AssertionSpec]; [ParseCase], [ReadCase],
//     [LoadCase] and [Case.Validate].
//   - event.go: [Event] and its kinds ([EventReady], [EventProgress],
//     [EventInterrupt], [EventResponded], [EventDone], [EventError],
//     [EventLifecycle]); [Interrupt] and [Answer]; [Progress] and
//     [NewProgress]; [ExitReason].
//   - plugin.go: [DriverPlugin], [DriverConfig], [StartInfo], [Session],
//     [Runtime] and [Capability]; [AnswererPlugin]; [AssertionPlugin],
//     [Check] and [Result].
//   - run.go: [Run] (the evidence an assertion sees), [RunMetadata],
//     [Provenance], [GradingReport].
//   - usage.go: [TokenUsage] and [Usage] — agent, answerer and judge kept
//     apart; usage the agent did not report is nil, never zero.
//   - config.go and errors.go: [DecodeConfig] (strict plugin configs),
//     [Problems] and [FieldError] (every problem at its field path), and
//     the sentinel errors ([ErrInvalidCase], [ErrInvalidConfig], ...).
//
// This package imports no other package of the module: drivers,
// answerers, assertions, the orchestrator and the analysis packages all
// build on it.
package lux

// Version is the version of this module, recorded in every run.
const Version = "0.1.0"
