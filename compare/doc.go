// Package compare compares run records: one run with another, and one
// suite (or set of runs) with another. It answers the question a CI job
// asks after every change to a skill, a prompt or an agent: is B better
// than A, worse, not detectably different, or not comparable at all, and
// why. A is the baseline, B the change; every difference is B − A.
//
// It reads records through package record. The orchestrator writes those
// records and does not import this package: to compare what an
// Orchestrator just returned, pass its result's Dir to [Runs] or [Suites].
//
// # Entry points
//
//   - [Runs] (two run directories) and [RunRecords] (two runs already
//     read) give a [RunComparison]: identity mismatches, run deltas,
//     grading deltas per assertion and a diff of each changed text artifact.
//   - [Suites] (two suite directories), [RunSets] (two lists of run
//     directories) and [SuiteRecords] (two suites already read) give a
//     [SuiteComparison]: cases paired by id, repetitions reduced to
//     per-case means, a paired [Effect] with a confidence interval per
//     metric (clustered when clusters are declared), McNemar's exact test
//     on flipped verdicts, Fisher's exact test on each case's own runs,
//     and the gate.
//
// A typical gate in a program of your own:
//
//	c, err := compare.Suites(ctx, baselineDir, candidateDir, compare.Options{})
//	if err != nil {
//		return err
//	}
//	c.WriteText(os.Stdout)
//	if c.Gate.Failed {
//		os.Exit(1)
//	}
//
// # Verdicts, identity and the gate
//
// The verdict is [Better], [Worse], [NoDifference] or [NotComparable].
// Runs are comparable only when their identity (record.IdentityHash)
// matches; a change made on purpose is named with [Options].Vary (a new
// prompt varies [FieldCaseHash], a new skill in the fixtures
// [FieldFixturesHash]), and any other mismatch makes the comparison not
// comparable and fails the gate. The gate fails when a gate metric is
// significantly worse, when a case fell significantly on its own runs,
// when a case fell with too few runs for any test, when the sign test over
// few cases shows a fall, or (with [Options].Strict) on any fall; every
// rule it checked is a [GateCheck] naming its test and what it found.
//
// Caveats are [Warning] values with stable codes; the text for people is
// [RunComparison.WriteText] and [SuiteComparison.WriteText], and both
// types marshal to JSON with stable field names.
//
// The full rules — identity fields, what each delta holds, the gate's rule
// table, how records are read, the JSON field names and the benchmarks —
// are in the repository's docs/compare-and-statistics.md.
package compare
