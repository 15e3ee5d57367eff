// Package report renders run records as pages people look at: one
// self-contained HTML file for a suite, a run or a comparison of two
// suites, and the same pages served for browsing (Handler).
//
// It reads records through package record and takes comparisons from
// package compare as they are, effects and intervals included: nothing is
// computed again here but the pass rate's interval on a suite page, which
// comes from stats.Mean over the per-case pass rates (clusters as units
// when declared). It never imports the orchestrator.
//
// # Pages
//
//   - Suite ([Suite]): the totals (pass rate with its interval, graded,
//     errored and cancelled runs, agent tokens, cost, duration) and one row
//     per case: its repetitions as a pass/fail strip, mean score, the
//     assertions that failed with the first reason, tokens and duration.
//     The rows sort by column and filter by tag, cluster, verdict, failed
//     assertion, id and least duration or tokens. A case links to its first
//     failing run, a flaky case to the paired view of a passing against a
//     failing repetition.
//   - Run ([Run]): the trajectory as a timeline (agent messages, tool calls
//     with their input and result collapsed, questions and the answers
//     given, usage per model call, offsets and timestamps), the assertions
//     with their evidence, the artifacts with a preview of their text, the
//     standard error's tail and the provenance.
//   - Pair ([Pair]): two runs of one case side by side (A and B, or two
//     repetitions): verdicts, assertions paired by id with their whole
//     comments, the trajectories aligned by a longest common subsequence of
//     the steps' kinds (and tools), and the workspace diff (files added,
//     removed, changed; unified diffs of text files by compare.UnifiedDiff,
//     sizes and SHA-256 of binary ones).
//   - Comparison ([Comparison]): the verdict and the gate in one sentence;
//     a forest plot of the paired effects, one row per metric with the
//     estimate as a point, its confidence interval as a bar, a zero line,
//     and the method and number of units in the row's label (a metric no
//     case changed is named in one line instead, and each caveat is said
//     once with its metrics); on demand, the change of every changed
//     case's pass rate; the flip list, the surest change first by the
//     case's own Fisher test; every paired case with its runs and its
//     paired view; the identity mismatches with the field and both values.
//   - Experiment ([Experiment]): the decision, gates, forest plots, the
//     flipped cases against the baseline (Fisher's test per case, computed
//     here from the runs' verdicts) and every case's runs per candidate.
//
// Plots are SVG written by this package: each has a title and a
// description, every mark has its value written beside it, and the pages
// print legibly (no colour is the only carrier of meaning).
//
// # Safety
//
// Every string from a record — what the agent wrote, a case's prompt and
// id, an artifact's name and content, a server's reply — reaches the page
// through html/template, which escapes it for where it appears (text,
// attribute, URL). Data is never placed inside the script. The page also
// carries a Content-Security-Policy that allows only its own style and its
// one script (by hash) and no request at all (a served page may ask its own
// server whether a running record changed), so markup that escaped the
// escaping still could not run or fetch. Control characters in a record's
// text are shown as U+FFFD. Artifacts are read through
// internal/safefs: a path that leaves the workspace or goes through a
// symbolic link is not previewed.
//
// # Size
//
// A static suite page holds a row per case and a cell per run, and embeds
// the details of at most Options.MaxEmbeddedRuns runs (50; those that did
// not pass first), each with at most Options.MaxEvents events (400), every
// text cut at Options.MaxText bytes (4 KiB) and every artifact preview at
// Options.MaxPreview (2 KiB); what is left out is said on the page. Every
// case row is in the file (filters and sorting see them all), but only the
// first Options.MaxRows (500) matching rows are laid out until "show all"
// is pressed. So the file grows by about 200 bytes per run and 500 per
// case, plus at most about 50 × 400 × 4 KiB of embedded trajectories in the
// worst case (typically tens of KiB per run). The served suite page embeds
// nothing: each run's page is read from disk when its link is followed,
// with its whole trajectory. A static comparison or experiment embeds the
// paired views of at most Options.MaxPairs (20) changed cases, and a
// static suite those of as many flaky cases, each bounded as an embedded
// run is, with diffs of at most 400 lines.
//
// # Live view
//
// A served suite or experiment still running says how far it got and
// reloads when its directory changes: the page asks /changes, which looks
// at the directory's entries (never their contents) once a second for up
// to 25 s and answers as soon as they change, so the records are read
// and the page rendered again only after a run finished.
//
// # Performance
//
// BenchmarkSuite10k builds and renders the page of a suite of 10,000 runs
// (2,500 cases × 4 repetitions, 250 clusters, one case in ten failing),
// reading suite-summary.json, one case.json per case and the records of
// the runs that did not pass; with a Chromium installed it also times the
// page's load event. Measure it on your machine with
//
//	go test -run '^$' -bench Suite10k -benchtime 3x ./report/
package report
