// Package experiment runs controlled campaigns that decide, with paired
// clustered effects, whether a change to what an agent is given (a skill,
// a CLAUDE.md or AGENTS.md, a prompt file, a plugin: the subject) should
// ship.
//
// A Campaign (built in Go, or a *.experiment.json file read with Load)
// names the subject's mutable files, the variants (new contents of some of
// them), the profiles (the arms' driver, answerer and environment), the
// splits (train, validation, test: selectors over case files), the
// repetitions, the constraints and objectives, and the budget. Run
// captures the baseline, materializes every candidate into its own tree,
// runs each unit — candidate × profile × split × case × repetition — as an
// ordinary run through the orchestrator (so lux view and lux compare work
// on them), and decides: promote a variant, retain the baseline, reject,
// or — when a candidate failed only constraints its split had too few
// independent units to decide — inconclusive. Plan names such constraints
// before anything runs (the units a split has and needs), and Run refuses
// them unless Options.Force. Cases refer to the candidate's files with the token
// {{lux.subjectRoot}} (see orchestrator.SubjectRootToken).
//
// The effects are package compare's paired effects (cases paired by id,
// repetitions reduced to per-case means, clusters as the independent
// unit) of each candidate against the baseline, per profile, split and
// metric; absolute constraints use stats.Mean over the per-case means. A
// pass rate or score without spread gets the exact bound
// (stats.ConstantInterval), never a zero-width interval.
// The decision is a pure function of the campaign, the candidates and the
// units recorded, so a report recomputes it and refuses a ledger whose
// stored decision differs.
//
// A campaign with a Sequential rule runs in rounds — one repetition of
// every case of every split, for the baseline and each variant still
// running — and decides each constraint against the baseline with an
// anytime-valid test (Constraint.Test: the sign test on discordant pairs,
// or a betting or empirical-Bernstein confidence sequence of the round's
// mean paired difference), each at level 1 − alpha/K for K variants
// (Bonferroni on e-values). A variant stops when every such gate has
// crossed its threshold, when one is futile, or at MaxRounds; no further
// units are spent on it. After each round the journal records every
// gate's test state (a line of kind "round"); Resume continues those
// e-processes, and readers replay the units through the same engine and
// refuse a journal that disagrees. The decision says "decided after N of
// at most M runs (saved K)" (Decision.Sequential), each gate its e-value,
// anytime p-value, confidence sequence and history (Gate.Sequential), and
// Plan the worst case and the expected spend under Sequential.Plan.
//
// Everything is kept in a ledger, <runsRoot>/.experiments/<timestamp>-<id>/
// (see Manifest): it survives kill -9 (a torn journal line is repaired, a
// unit file written just before the crash is adopted, a dead owner's lock
// is taken over) and Resume runs only what is missing, refusing when the
// campaign, the subject, a driver's identity or an environment changed.
// Open reads a ledger for reports; BuildReport and Apply are what `lux
// report` and `lux apply` do.
//
// A campaign with a Grader block is a grader experiment: its subject is
// rubric files, its splits select labels of a label dataset (package
// labels) by tag, and each unit — candidate × split × label × repetition
// of the judge — regrades the labelled, frozen run offline with the
// candidate's rubrics (orchestrator.Grade; every run is checked against
// its label, its seal and its evidence first, and nothing is re-run or
// written into it) and scores the grading against the label (the judge.*
// metrics). Units pair by label and cluster by the labelled run's case,
// so the effects, gates, decision, ledger, budget (maxJudgeCalls before
// each unit) and Apply are those above; Evaluation.Agreement adds each
// candidate's agreement with the labels (labels.Agree).
//
// Globs (subject.mutable, subject.exclude, split patterns) are
// slash-separated, with "**" for any number of directories and {a,b}
// alternatives; names that start with a dot are matched only by a pattern
// segment that starts with a dot.
//
// The campaign file, the decision rules and the ledger are described in
// full in the repository's docs/experiments.md.
package experiment
