// Package orchestrator runs cases and suites of cases through the plugins
// of a lux.Registry and records every run on disk (package record holds
// the layout and the file formats).
//
//	o := New(builtin.Registry(), Options{Concurrency: 4, Repetitions: 3})
//	res, err := o.RunSuite(ctx, cases)
//	// res.Dir is the suite's record: read it with package record, compare
//	// it with package compare, show it with package report.
//
// # Runs
//
// [Orchestrator.Run] validates a case before anything starts — the case,
// its driver and answerer (or the defaults of [Options]) and their configs,
// its assertions, its fixtures and the capabilities it requires — and
// reports every problem at once with its field path; nothing is recorded
// for a case refused this way. It then stages a fresh workspace, starts the
// driver, answers each interrupt through the answerer before reading the
// next event, stops the agent's whole process tree at the end (or at the
// run's time limit), collects the artifacts, grades, and fingerprints the
// evidence in run.json, which [Orchestrator.Regrade] verifies.
//
// Whatever happens — the agent fails, a plugin panics or hangs, the
// context is cancelled — the run directory ends up complete, and run.json
// says how the run ended: its exit reason and, for failures of the
// harness, the record.Phase that failed. The outcome is decided once, by the
// first failure; what fails after it never changes the exit reason. An
// assertion that could not be evaluated leaves the case without a verdict,
// never a silent pass or fail.
//
// # Suites
//
// [Orchestrator.RunSuite] validates every case first, then runs each
// Options.Repetitions times, Options.Concurrency at a time. One run's
// failure never stops the others; a cancelled context ends the runs in
// flight as cancelled and marks the rest skipped, and
// [Orchestrator.ResumeSuite] finishes them later. Memory holds a small
// item per run, never a finished run's trajectory.
//
// Which driver and answerer each case runs is decided in one place,
// [Choose]. The orchestrator imports none of the packages that read its
// records (compare, report, experiment); a test keeps it so.
//
// The steps of a run in full, retries, budgets, lifecycle hooks and the
// overhead benchmark are described in the repository's
// docs/suites-and-records.md.
package orchestrator
