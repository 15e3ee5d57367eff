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
//  2. Embed [ProcessConfig] in the driver's config (command, env,
//     inheritEnv, idleTimeout, with the defaults of [CLIDefaults] or
//     [LuxJSONLDefaults]), call its Validate from the config's, decode
//     the config with [lux.DecodeConfig] giving it the config's Validate
//     (unknown fields, values of the wrong type and invalid values are
//     reported all at once), then fill in the defaults with
//     [ProcessConfig.WithDefaults]. [Parser] turns the driver's Parse
//     into a [lux.DriverPlugin]'s.
//  3. In the driver config's Start, build the child's environment with
//     [BuildEnv] (the host environment only when the config asks to
//     inherit it), and call [StartSession] with a [ProcessSpec] (command,
//     arguments, working directory, environment, StartInfo.Stderr) and the
//     run's limits. The returned [*Session] is the [lux.Session]. A
//     config whose Start starts its agent with StartSession, and with the
//     Start's own context, can also say so with a method
//     StartsAtGate() bool returning true (see orchestrator.GatedStarter):
//     a suite then starts it before the run's turn under -j, the agent
//     held, confined and stopped, at the sandbox's gate until the turn
//     comes.
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
// # Containment
//
// Every agent runs as the leader of its own process group, and stopping it
// (Quiesce, Close, the end of the run) is, as the MCP specification has it
// for stdio servers, stdin closed and a grace to exit by itself (at most
// DefaultStdinGrace; ExitDrain for an agent that reported its end), then
// SIGTERM, KillGrace, then SIGKILL to everything the agent started. What "everything" covers depends on
// the system:
//
//   - Linux, where the harness may create a cgroup v2 below its own (as
//     root, or in a delegated cgroup): each agent starts in a cgroup of
//     its own, so every process it starts is found whatever it does
//     (setsid, a double fork, a daemon holding stdout). Stopping kills
//     the cgroup and returns only once it is empty; artifacts are
//     collected after that, so nothing can change them any more. A
//     harness killed outright (SIGKILL) takes every agent with it: a
//     watchdog process kills its cgroups when it ends.
//   - Linux without a usable cgroup: the harness becomes a child
//     subreaper, so orphans re-parent to it; an agent's processes are its
//     process tree and every process whose environment carries the
//     agent's mark (LUX_PROCESS_TREE), with their descendants; stopping
//     kills them until none remains. A process that leaves the tree and
//     also starts with an environment of its own (env -i) is not found.
//     A harness killed outright takes each agent's process group with it
//     (the leader by Pdeathsig, the group by the watchdog); what left the
//     group survives.
//   - Other systems: the process group only; a descendant that leaves it
//     (setsid, setpgid) survives the run, and a harness killed outright
//     leaves its agents running.
//
// A process still alive 10 s after SIGKILL (uninterruptible sleep) makes
// Quiesce fail, and the run records that its evidence could not be
// collected.
//
// [Process] and [Stdin] are the lower layer, for a driver that needs to
// run a process outside a Session.
package driver
