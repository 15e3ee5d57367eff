// Package temporal runs lux suites and experiments on Temporal, on any
// number of machines: each run is one activity, executed by a worker
// (NewWorker) that records it in a Store every machine shares, and the
// runs of a suite (or of an experiment) are one workflow (RunsWorkflow).
//
// The client side is an orchestrator.Executor (Executor): set it as
// orchestrator.Options.Executor and a suite is planned, identified and
// recorded as a local one (suite.json, suite-summary.json, every run's
// record in the runs root's layout), only its runs execute on the
// workers. A worker rebuilds each run from its orchestrator.PlannedRun
// with its own Registry and refuses, as a non-retryable failure, a run
// whose identity it computes differently.
//
// Retries are for infrastructure only: a worker lost (its heartbeats
// stopped) or a record that could not be written; a run the agent
// finished fails its activity, when its verdict is fail or error, with a
// non-retryable application error of type ErrRunOutcome. Cancelling the
// workflow cancels its runs: each is stopped, its agent's process tree
// with it, and recorded as cancelled.
//
// A sequential experiment's round loop is a workflow of its own
// (ExperimentWorkflow): each round's runs are a child runs workflow, and
// the stopping rule (experiment.SeqRule) runs between rounds as workflow
// code; Executor implements experiment.RoundsExecutor for it, and the
// experiment journals each round's record as it would locally.
//
// This is its own Go module, so that the lux module does not depend on
// Temporal, gRPC or protobuf; cmd/lux-temporal is the lux command line
// with the worker command and the -executor flag.
package temporal
