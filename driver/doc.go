// Package driver is the toolkit for drivers that run an agent as a
// process: the subprocess driver in driver/subprocess and the drivers for
// agent CLIs build on it, and so can yours.
//
// # Composing a driver
//
// A driver's job is to translate one agent's wire format into lux events.
// Everything else — the process group, pipes, caps, clocks and ordering
// rules — is here:
//
//  1. Implement [Protocol]: Parse turns one stdout line into zero or more
//     [lux.Event] values (and may write to stdin, for instance replies to
//     JSON-RPC requests); Answer writes a [lux.Answer] to stdin in the
//     agent's format. [LuxJSONL] is the Protocol of the lux-jsonl line
//     protocol, which any program can speak.
//  2. Decode the driver's config with [ParseConfig], which reports unknown
//     fields, values of the wrong type and invalid values all at once.
//  3. In the driver config's Start, build the child's environment with
//     [BuildEnv] (the host environment only when the config asks to
//     inherit it), and call [StartSession] with a [ProcessSpec] (command,
//     arguments, working directory, environment, StartInfo.Stderr) and the
//     run's limits. The returned [*Session] is the [lux.Session].
//  4. For Runtime and experiment identity, use [IdentifyCommand] (the
//     resolved executable and its content hash; the command is never run)
//     or, for an agent CLI known to answer --version that the Runtime
//     lists in Versioned, [IdentifyCLI] (its version, asked in a sandbox
//     by [ProbeVersion]), and [HashFile].
//
// A Session starts the agent in its own process group, reads stdout with
// a [LineReader] (a line over the cap ends the run), runs an [IdleClock]
// (re-armed by every event, paused while an interrupt awaits its answer),
// enforces the event ordering every driver shares (see [Session]), stops
// the whole process group once the run ends or Quiesce is called, and
// walks the workspace for artifacts in Collect with [WalkArtifacts].
// Drivers whose agents do not announce themselves set
// [SessionOptions].Ready; drivers that can tell a clean exit from a crash
// set [SessionOptions].OnExit.
//
// [Process] and [Stdin] are the lower layer, for a driver that needs to
// run a process outside a Session.
package driver
