// Package compare compares run records: one run with another, and one
// suite (or set of runs) with another. It answers the question a CI job
// asks after every change to a skill, a prompt or an agent: is B better
// than A, worse, not detectably different, or not comparable at all, and
// why. A is the baseline, B the change; every difference is B − A.
//
// It reads records through package record and never imports the
// orchestrator; the orchestrator offers the same comparisons as methods.
//
// # Identity
//
// Two runs measure the same thing only when their comparison identity
// matches (record.IdentityHash): the case, its assertions and fixtures,
// the driver, answerer and evaluator configs, the runtime (driver, CLI
// versions, model, capabilities), the declared environment, the source
// (case path and git commit), the host, the agent as it reported itself,
// and the experiment. When the hashes differ, each differing [Field] is
// reported as a [Mismatch] with both values, what differs inside it as
// [FieldChange] values ("commands[0].version: "1.0" → "2.0""; for the
// case hash, inside the two authored cases) and the flag that accepts it
// ("-vary runtime"); the text shows at most five changes a field, each
// value cut to 60 characters, and one command line that accepts them all.
// A repository that was dirty with no working-tree snapshot cannot prove
// what ran: its source never matches.
//
// A comparison that changes something on purpose says so with
// [Options].Vary: a new prompt varies [FieldCaseHash], a new skill in the
// fixtures [FieldFixturesHash], a new commit [FieldSource], a new agent
// [FieldRuntime] or [FieldDriverConfigHash]. Varied mismatches are
// reported and marked; any other mismatch makes the verdict
// [NotComparable] and fails the gate. Runs of different canonical cases
// are never comparable, whatever Vary says.
//
// # Runs
//
// [Runs] (two run directories) and [RunRecords] (two runs in memory) give
// a [RunComparison]: the identity mismatches; the run deltas (exit reason,
// duration, interrupts by kind, tool calls, artifacts, agent tokens and
// cost, harness tokens split into answerer and judge); the grading deltas
// per assertion id (regressed, improved, score up or down, ungraded, added,
// removed, unchanged) with the case verdict and score; and the artifacts
// added, removed and changed (by SHA-256, from artifacts.json), with an
// [ArtifactDiff] for each of the first ten changed ones when both run
// directories hold them: a unified diff (three lines of context, at most
// 40 lines) of a text file up to 256 KiB, or a note that it is binary or
// too large. An agent that reported no usage has null tokens and cost,
// shown as "unavailable", never as 0; when neither run reports any, the
// text says so in one line.
//
// The verdict is worse when the case verdict or any assertion goes from
// pass to fail or to no verdict (a run that did not end done fails), and
// then the gate fails (rule [GateGrading]; [GateIdentity] fails on a
// mismatch that is not varied); better when something goes the other way and
// nothing regressed; otherwise the case score decides, and equal scores
// are no detectable difference. Added and removed assertions are listed
// but do not gate: they change the assertions hash, which must be varied
// for the runs to compare at all.
//
// # Suites
//
// [Suites] (two suite directories), [RunSets] (two lists of run
// directories) and [SuiteRecords] (two suites in memory) give a
// [SuiteComparison]. The unit is the case: cases are paired by canonical
// id, and each case's repetitions are reduced to per-case means first.
// Cases present on one side only are listed and left out of the paired
// numbers. Every run of a paired case, on both sides, must have one
// identity; a case whose identity differs in a field that is not varied
// is listed with its mismatches, left out of the paired numbers, and makes
// the verdict not comparable (the effects over the other cases are still
// reported).
//
// Every metric — the pass rate (runs that ended done and passed), the case
// score, and the metrics of record.RunMetrics (duration, tokens, cost,
// tool calls, interrupts, ...) — is a paired [Effect] with a confidence
// interval from stats.Paired over the per-case means: Student t by
// default, a seeded percentile bootstrap on request. When any paired case
// declares a cluster, the clusters are the independent units (t with C−1
// degrees of freedom, the bootstrap resampling whole clusters; a case
// without a cluster is a unit of its own). A new cluster label changes a
// case's hash, so a case labelled differently in A and B compares only
// with [FieldCaseHash] varied; its difference then depends on both
// labellings, and the clusters it belongs to on either side become one
// unit (named "x+y"). A metric missing from some runs of a case (tokens
// of an agent that reports none, say) leaves that case out of that
// metric's effect rather than averaging what happens to be there; when no
// case is left the effect is unavailable and says why (a metric no run of
// either side has is left out of the text's table and named in one line).
//
// A rate or a score lies in [0, 1], so its paired difference, and any
// interval of it, lies in [−1, 1] (±100 pts): an interval that reaches
// beyond is clipped to it, with a [WarnClipped] warning. With fewer
// independent units than an exact paired test needs to reach the level at
// all — n with 2/2ⁿ ≤ 1 − Level, so 6 at 95 % — no interval can rule
// anything out: the interval is the whole range, never significant, with
// the [WarnFewUnits] warning "too few independent units for a useful
// interval (n=3)".
//
// A case's verdict on a side is "passed" when more than half of its runs
// passed. Cases whose verdict flipped are counted, with McNemar's exact
// two-sided p-value on the flips (which treats cases as independent,
// clusters or not); the text says whether it is significant at 1 − Level,
// and a [WarnTestsDisagree] warning says when it and the pass rate's
// interval disagree (the interval weighs every case's pass rate, the test
// only the flipped verdicts). A case is "regressed" when its pass rate
// fell by more than Options.PassRateTolerance; each case also has the
// one-sided p-value of Fisher's exact test that its pass rate fell
// (CaseDelta.FallP) or rose (RiseP), over its own runs.
//
// # The gate
//
// The gate of a suite comparison fails on any of these rules, and records
// every rule it checked as a [GateCheck] — the test it rests on, what it
// found, the cases that failed it — so that a gate that passed says why:
//
//   - [GateIdentity]: a paired case's identity differs in a field that is
//     not varied, or no case is left to pair (verdict not comparable).
//   - [GateMetric], one per gate metric (Options.GateMetrics, the pass rate
//     by default; any metric with a direction, see [MetricBetter]): its
//     interval lies entirely on its worse side of 0.
//   - [GateCaseFalls]: a case regressed and its fall is significant on its
//     own runs, FallP ≤ 1 − Level (CaseDelta.GateFailed). This catches a
//     sure regression that a few cases cannot show in aggregate: a case
//     that passed 3 of 3 runs and now passes 0 of 3 has p = 1/20 and fails
//     the gate at 95 %, whatever the other cases do. A fall that could
//     have been tested (CaseDelta.Testable) and is not significant, such
//     as 3/3 → 2/3 (p = 1/2), passes, and the check says so. Each case is
//     tested on its own, with no correction for the number of cases: with
//     many flaky cases and few repetitions a chance fall from all to none
//     is possible (for a case passing half its runs, 3/3 then 0/3 has
//     probability 1/64). Options.PassRateTolerance exempts falls up to it.
//   - [GateUntestedFalls]: a case regressed with too few runs for any fall
//     to be significant on its own (not Testable: even all → none has a
//     Fisher p above 1 − Level, as with one or two runs a side at 95 %).
//     No test could clear such a fall, so every one counts: with one run
//     per case, a case going from pass to fail fails the gate. A rise
//     that cannot be tested is never called better.
//   - [GateSignTest]: with fewer than stats.FewUnits independent units,
//     the exact sign test over the units (clusters when clustered) whose
//     mean pass rate moved by more than the tolerance shows a fall,
//     one-sided, p ≤ 1 − Level (5 of 5 fell: p = 1/32). It catches cases
//     that each fell a little, none significantly on its own, too few for
//     a useful interval.
//   - [GateStrict], with Options.Strict: any regressed case and any case
//     whose verdict flipped from pass to fail, significant or not.
//
// The verdict is worse when a gate metric's interval lies on its worse
// side, a case fell significantly on its own or untested, or the sign
// test shows a fall; better when a gate metric's interval lies on its
// better side, a case rose significantly on its own, or the sign test
// shows a rise, and nothing is worse; otherwise no detectable difference.
// Each of its reasons, and each of the gate's, names the test it rests on
// ("pass rate fell (95% t interval excludes 0): ...", "... (no test
// possible, so any fall counts)"). Other metrics are reported, marked
// better or worse when significant, and never gate.
//
// Caveats are [Warning] values with stable codes, on the comparison (few
// cases, many unmatched cases, ungraded runs, an incomplete suite,
// McNemar with clusters, tests that disagree) and on each effect (few
// clusters, zero spread, few resamples, from package stats; too few units
// for a useful interval; a clipped interval). An effect's caveat is worded
// for the metric's range — the advice to use hoeffding only for a rate or
// a score, which lie in [0, 1] — and names no metric, so that
// SuiteComparison.EffectWarnings says each once with the metrics it
// concerns ([EffectWarning]); the text lists those. A metric whose every
// paired case has the same value on both sides is [Effect].NoChange: the
// text names it in one line, "no change in any case", not as an interval
// row, and its effect carries no caveat.
//
// # Reading records
//
// A suite is read from suite-summary.json, streamed one sample at a time:
// the per-case summaries in the file are skipped element by element and
// no run directory is opened, so memory grows with cases × metrics, not
// with runs, and no event log is ever read. Only when a case's identity
// hashes differ are run.json and case.json of one run per distinct
// identity read, to name the fields. A suite without a summary (cancelled
// hard, or still running) is read from suite.json and each run's run.json
// and grading.json in turn; a run set from each run's run.json,
// grading.json and case.json (for its cluster). Both sides are read at
// once. Errors name the path and the problem — not a run or suite
// directory ([ErrNotRecord]), a run where a suite is expected or the other
// way round ([ErrKindMismatch]), an empty or truncated file, corrupt JSON,
// a field of the wrong type, a score or metric that is NaN or infinite
// ([ErrCorrupt], naming the side, the case and the metric) — and a
// cancelled context stops the reading.
//
// # Output
//
// [RunComparison.WriteText] and [SuiteComparison.WriteText] write aligned
// plain text for people, an arrow per delta; the golden files under
// testdata show every section. Both types marshal to JSON for tools with
// these stable field names (nested structs are listed once):
//
//	RunComparison   a, b (RunInfo), verdict, reasons, gate, mismatches, run, grading, artifacts
//	RunInfo         dir, runId, caseId, suiteId, repetition, driver, startedAt
//	Gate            failed, reasons, checks [{rule, metric, test, failed, cases, detail}]
//	Mismatch        field, a, b, changes [{path, a, b}], moreChanges, flag, diff, note, varied, within
//	RunDelta        exitReason, reason, operationalFailure, durationMs, interrupts, toolCalls,
//	                artifacts, agentUsageAvailable, agentTokens (null: unavailable),
//	                agentCostUsd (null: unavailable), harnessTokens, answererTokens,
//	                judgeTokens, usage — each {a, b}
//	GradingDelta    available, verdict ("pass"|"fail"|"ungraded"), score, incomplete — each {a, b};
//	                counts {regressed, improved, scoreUp, scoreDown, ungraded, added, removed,
//	                unchanged}; assertions [{key, type, name, status, a, b}] with
//	                a/b {passed (null: ungraded), score, error}
//	ArtifactDelta   added, removed, changed, unchanged, diffs [{path, diff, truncated, moreLines,
//	                binary, note}]
//
//	SuiteComparison a, b (SuiteInfo), verdict, reasons, gate, settings, counts, onlyA, onlyB,
//	                mismatches [{caseId, mismatches}], varied [{field, cases}], cases, effects,
//	                flips, warnings [{code, message}], effectWarnings [{code, message, metrics}]
//	SuiteInfo       dir, suiteId, status, attempts, runs, cases, passed, failed, ungraded,
//	                pending, passRate
//	Settings        method, level, resamples, seed, passRateTolerance, strict, gateMetrics, vary
//	CaseCounts      paired, onlyA, onlyB, mismatched, clusters
//	CaseDelta       caseId, cluster, runs, passRate, passed, score — each {a, b}; status,
//	                fallP, riseP, testable, gateFailed, gateRule
//	Effect          metric, unit, better, a, b, delta, cases, dropped, runsWith {a, b},
//	                interval (null: none), significant, outcome ("better"|"worse"|""),
//	                noChange, unavailable, warnings
//	Interval        lower, upper, method, level, stdErr, units, clustered, resamples, clipped
//	Flips           passToFail, failToPass, mcnemarP
//
// Gate rules are "identity", "grading" (runs), "metric", "case-falls",
// "untested-falls", "sign-test" and "strict" (suites).
// Verdicts are "better", "worse", "no detectable difference" and "not
// comparable"; fields are only ever added.
//
// # Performance
//
// BenchmarkCompareSuites10k compares two suites of 10,000 runs each (2,500
// cases × 4 repetitions, 250 clusters); BenchmarkCompareRunSets10k two sets
// of 10,000 run directories. Measure them on your machine with
//
//	go test -run '^$' -bench Compare -benchtime 1x ./compare/
//
// About a third of the suite time goes to skipping the per-case summaries
// of suite-summary.json, which a comparison does not need.
package compare
