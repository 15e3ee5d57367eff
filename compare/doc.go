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
// reported as a [Mismatch] with both values and a go-cmp diff (for the
// case hash, a diff of the two authored cases). A repository that was
// dirty with no working-tree snapshot cannot prove what ran: its source
// never matches.
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
// added, removed and changed (by SHA-256, from artifacts.json). An agent
// that reported no usage has null tokens and cost, shown as
// "unavailable", never as 0.
//
// The verdict is worse when the case verdict or any assertion goes from
// pass to fail or to no verdict (a run that did not end done fails), and
// then the gate fails; better when something goes the other way and
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
// case is left the effect is unavailable and says why.
//
// A case's verdict on a side is "passed" when more than half of its runs
// passed. Cases whose verdict flipped are counted, with McNemar's exact
// p-value on the flips (which treats cases as independent, clusters or
// not). A case is "regressed" when its pass rate fell by more than
// Options.PassRateTolerance.
//
// The verdict follows the gate metrics (Options.GateMetrics, the pass
// rate by default; any metric with a direction, see [MetricBetter]):
// worse when one's interval lies entirely on its worse side of 0 (for the
// pass rate, entirely below 0), which fails the gate; better when one's
// lies entirely on its better side and none is worse; otherwise no
// detectable difference. Other metrics are reported, marked better or
// worse when significant, and never gate. With Options.Strict the gate
// also fails on any regressed case and on any pass → fail flip,
// significant or not.
//
// Caveats are [Warning] values with stable codes, on the comparison (few
// cases, many unmatched cases, ungraded runs, an incomplete suite,
// McNemar with clusters) and on each effect (few clusters, zero spread,
// few resamples, from package stats).
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
//	Gate            failed, reasons
//	Mismatch        field, a, b, diff, note, varied, within
//	RunDelta        exitReason, reason, operationalFailure, durationMs, interrupts, toolCalls,
//	                artifacts, agentUsageAvailable, agentTokens (null: unavailable),
//	                agentCostUsd (null: unavailable), harnessTokens, answererTokens,
//	                judgeTokens, usage — each {a, b}
//	GradingDelta    available, verdict ("pass"|"fail"|"ungraded"), score, incomplete — each {a, b};
//	                counts {regressed, improved, scoreUp, scoreDown, ungraded, added, removed,
//	                unchanged}; assertions [{key, type, name, status, a, b}] with
//	                a/b {passed (null: ungraded), score, error}
//	ArtifactDelta   added, removed, changed, unchanged
//
//	SuiteComparison a, b (SuiteInfo), verdict, reasons, gate, settings, counts, onlyA, onlyB,
//	                mismatches [{caseId, mismatches}], varied [{field, cases}], cases, effects,
//	                flips, warnings [{code, message}]
//	SuiteInfo       dir, suiteId, status, attempts, runs, cases, passed, failed, ungraded,
//	                pending, passRate
//	Settings        method, level, resamples, seed, passRateTolerance, strict, gateMetrics, vary
//	CaseCounts      paired, onlyA, onlyB, mismatched, clusters
//	CaseDelta       caseId, cluster, runs, passRate, passed, score — each {a, b}; status
//	Effect          metric, unit, better, a, b, delta, cases, dropped, interval (null: none),
//	                significant, outcome ("better"|"worse"|""), unavailable, warnings
//	Interval        lower, upper, method, level, stdErr, units, clustered, resamples
//	Flips           passToFail, failToPass, mcnemarP
//
// Verdicts are "better", "worse", "no detectable difference" and "not
// comparable"; fields are only ever added.
//
// # Performance
//
// Measured with the benchmarks in bench_test.go (go test -bench . ./compare/)
// on a 2-core AMD EPYC (Turin) virtual machine, linux/amd64, Go 1.26, that other
// work was loading (load average about 6), so expect less on an idle one:
//
//	BenchmarkCompareSuites10k   two suites of 10,000 runs each (2,500 cases × 4 repetitions,
//	                            250 clusters; 53 MiB of summaries): 0.5–1.2 s per comparison,
//	                            41 MB and 1.5 M allocations, peak heap 9–15 MiB
//	BenchmarkCompareRunSets10k  two sets of 10,000 run directories (60,000 small files read):
//	                            2.3–3.2 s, 605 MB and 8.4 M allocations, peak heap 13–17 MiB
//
// About a third of the suite time goes to skipping the per-case summaries
// of suite-summary.json, which a comparison does not need.
package compare
