// Package optimize searches for better versions of a subject's mutable
// files (a skill, an AGENTS.md, a prompt) and lets package experiment's
// held-out gates decide what ships.
//
// An Optimizer (your own Go value, or Reflective, the built-in one that
// asks a harness model — claude -p or codex exec) is given an Input: the
// campaign's id and mutable globs, the current candidate's files in full,
// its train observations (per case and repetition: verdict, failed
// assertions with their comments, a trimmed trajectory), up to two other
// frontier members with theirs, and the budget left. It returns
// Proposals: whole new contents of some mutable files, a rationale, and
// the usage the call cost. Check refuses a proposal that names a file
// outside the mutable set or one not shown in full.
//
// Search evaluates the baseline on the train split, then iterates: pick a
// parent from the per-case Pareto frontier of the train results (a
// candidate survives when no other is at least as good on every train case
// and better on one), ask for proposals, evaluate each new candidate on
// train (each in its own materialized tree, as an experiment of its own
// under the search ledger), until a budget (candidates, proposal calls,
// runs, tokens, cost, wall time on Options.Now — proposal tokens and cost
// count, and are reported apart in Result.Spent), Options.Patience calls
// without a new best on any train case, or the stop file ends it.
// Validation and test cases are never in an Input. The best
// Options.TopK frontier candidates then run the campaign itself as its
// variants (experiment.Run; without its train split unless a constraint
// or objective is on it), so its paired, clustered gates on validation
// and test — and its sequential rule when it declares one — decide: a
// candidate that only fits the train cases is rejected there.
//
// Everything is journaled in <RunsRoot>/.optimize/<stamp>-<id>/
// journal.jsonl (see Entry): every proposal call with its parent,
// rationale, files, usage or error, every evaluation, the finalists and
// the held-out ledger. Resume continues a killed search: it evaluates (or
// resumes the experiment of) a candidate proposed but not evaluated, never
// calls the optimizer again for a call it journaled, and resumes the
// held-out experiment if it had started. Lineage and LineageLines read the
// parent → child steps with the train gain of each; lux report shows them
// for the held-out experiment's ledger (SearchOf).
package optimize
