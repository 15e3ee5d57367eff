// Package orchestrator runs cases and suites of cases through the plugins
// of a lux.Registry and records every run on disk (see package record).
//
// An Orchestrator validates a case before anything starts (the case, its
// driver and answerer configs, its assertion plan, and the capabilities it
// requires), stages a fresh workspace with the fixtures, prepares the
// answerer, starts the driver, answers each interrupt before the agent
// continues, stops the agent after its terminal event, collects the
// artifacts, grades them and closes everything. Whatever happens to the
// agent, and when the context is cancelled too, the run directory ends up
// complete: case.json, run.json, events.jsonl, grading.json,
// artifacts.json, stderr.log and artifacts/.
//
// RunSuite runs many cases, each any number of times (repetitions share
// the case's canonical id), with a concurrency limit, and records the
// suite's manifest and summary. One run's failure never stops the suite.
package orchestrator
