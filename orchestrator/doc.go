// Package orchestrator runs cases and suites of cases through the plugins
// of a lux.Registry and records every run on disk (see package record for
// the layout and the file formats).
//
// # Runs
//
// [Orchestrator.Run] validates a case before anything starts — the case,
// its driver and answerer (or the defaults of [Options]) and their
// configs, its assertion plan, its fixtures directory, and the
// capabilities it requires of the driver — and reports every problem at
// once with its field path. Nothing is recorded for a case refused this
// way. Then it reserves a run directory, stages a fresh workspace with the
// fixtures (hashing them) outside the record, under <root>/.live, with a
// scratch directory for the agent (StartInfo.RunDir, LUX_RUN_DIR; in a
// suite each worker empties and reuses its directory for its next run),
// prepares
// the answerer, starts the driver, and
// reads the agent's events: each interrupt is recorded, answered by the
// answerer, the answer recorded and delivered to the driver before the
// next event is read. After the terminal event, or at the run's
// wall-clock limit (the case's timeout, else Options.RunTimeout; exit
// reason timeout), it stops the agent's process tree and waits until it is
// empty, collects the artifacts, moves the workspace into the record as
// artifacts/, grades, closes everything, and fingerprints the evidence in
// run.json (Evidence), which Regrade verifies.
//
// Whatever happens — the agent fails, the answerer fails or answers the
// wrong interrupt, a plugin panics, the trajectory exceeds its cap, the
// context is cancelled — the run directory ends up complete (case.json, run.json,
// events.jsonl, grading.json, artifacts.json, artifacts/), and run.json
// says how the run ended: its exit reason and reason, and for failures of
// the harness the [lux.Phase] that failed (setup, answerer, driver, trace,
// timeout, cancel, collection; close for a failure after the outcome). The
// outcome is decided once, by the first failure of the harness or the
// agent; what fails after it is added to the operational failure's
// reason, and never changes the exit reason. A plugin's panic fails only its
// run, as a failure of the phase it happened in, with the panic's stack
// kept in the run's stderr.log; a panic while a case is validated is a
// problem of that case. A plugin call that ignores the cancellation of
// its context is abandoned after Options.CleanupTimeout.
//
// Grading follows these rules: an assertion passes when its check passes
// and its score reaches its threshold; the case score is the weighted mean
// of the scores of the assertions that could be evaluated; an assertion
// that could not be evaluated leaves the case without a verdict (null,
// never a silent pass or fail); a run that did not end done never passes.
//
// # Suites
//
// [Orchestrator.RunSuite] validates every case first, then runs each
// Options.Repetitions times (the repetitions share the case's canonical
// id), Options.Concurrency at a time. One run's failure never stops the
// others; a cancelled context stops dispatching, ends the runs in flight
// as cancelled and marks the rest skipped. suite.json is rewritten as
// items change state and suite-summary.json is written at the end; memory
// holds a small item per run (about 3 KiB with its summary), never a
// finished run's trajectory.
//
// # Overhead
//
// BenchmarkSuiteOverhead measures suites of trivial runs (the agent writes
// one file and exits; one assertion), with the agent in process (no agent
// time at all) or as a real process, at concurrency 1 and 4. Overhead is a
// run's duration (startedAt to endedAt) minus the agent process's own wall
// time. Measure it on your machine and disk with
//
//	go test -run '^$' -bench SuiteOverhead -benchtime 20x ./orchestrator/
//
// On a disk most of the harness's cost is file-system metadata (a run
// creates two directories and about ten files). With more runs at once
// than cores, a run's duration includes waiting for the CPU behind the
// other runs, while the suite's wall time per run falls. Options.Fsync
// adds a disk flush per file (milliseconds on most disks) for records that
// must survive a power loss.
//
// TestSuiteMemoryDoesNotKeepRuns runs suites of 10 and 60 runs whose
// trajectories are about 100 KiB each: the live heap after the suite grows
// by about 3 KiB per run (the manifest item and the summary sample).
package orchestrator
