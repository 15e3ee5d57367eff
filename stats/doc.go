// Package stats turns eval results into estimates with honest uncertainty:
// confidence intervals for a mean score and for the paired difference
// between two systems, the variance components of repeated runs, exact and
// approximate tests, power analysis, pass@k, and multiplicity corrections.
// It imports nothing else from this module.
//
// # Units
//
// The independent unit is the case, not the run: reduce repeated runs of a
// case to its mean first ([ReduceRepeats]). When cases are not independent
// of each other (variants of one scenario, tasks from one repository), give
// each value a cluster label; the cluster is then the unit, and every
// method accounts for it: Normal and StudentT use the cluster-robust CR1
// standard error (StudentT with C−1 degrees of freedom), the bootstrap
// resamples whole clusters, Hoeffding weights the cluster means, and Wilson,
// which needs independent 0/1 draws, is refused. An empty label makes a
// value a unit of its own.
//
// # Methods
//
//   - [Wilson]: 0/1 outcomes; good coverage even at 0/n and n/n.
//   - [Hoeffding]: any values in [0, 1]; valid for every n and distribution,
//     and wide.
//   - [Normal]: the CLT interval; fine with many units.
//   - [StudentT] (the default): the same standard error with a t quantile;
//     the safer choice for few units or few clusters.
//   - [PercentileBootstrap]: seeded, distribution-free; needs tens of units.
//   - [ClopperPearson]: exact for 0/1 outcomes, and the bound a sample of
//     bounded values without spread falls back to (Config.Bounded,
//     [ConstantInterval]): a zero-width interval from a few units claims a
//     certainty they cannot give.
//
// Every result carries the method, level, number of observations and of
// independent units, and its caveats as Interval.Warnings (few clusters, few
// units, zero spread, few resamples): a caveat is a [Warning] on the result,
// never an error. Errors are reserved for input that cannot be analysed; each
// is an [*Error] that matches a sentinel of errors.go with errors.Is. Both
// carry a stable [Code] and their detail, so a program maps codes to its own
// vocabulary instead of reading text.
//
// # Paired comparisons
//
// [Paired] compares two runs case by case (after − before), which removes
// the difficulty the cases share and is much tighter than comparing two
// separate intervals. For 0/1 outcomes, [McNemarExact] tests the
// discordant pairs exactly, and [FisherExactLess] tests whether one case's
// pass rate over its repetitions fell (k of n runs passed before, j of m
// after). [SampleSize] and [MinimumDetectableEffect] plan
// how many cases a comparison needs.
//
// # Sequential decisions (anytime-valid)
//
// A fixed-n test (t, McNemar, the bootstrap) is valid only if it is read
// once, at a size fixed in advance; looked at after every pair and
// stopped when it "looks decided", a 5 % z-test rejects a true null about
// half of the time over 200 pairs (see the simulation below). The
// sequential methods here stay valid however often they are read and
// whenever the experiment stops: each rests on a nonnegative
// (super)martingale under the null, an e-process E, and on Ville's
// inequality P(∃t: Eₜ ≥ 1/α) ≤ α. Each result carries the e-value at the
// last observation, its running maximum, the anytime-valid p-value
// min(1, 1/max E), the number of observations used and, for [SignTest],
// the stop reason (Crossed, Futile, MaxReached or Continuing). Each has a
// small JSON state (SignTestState, BettingState, EBState,
// NormalMixtureState); resuming from it gives bit-identical results to a
// run that never stopped, so a killed campaign continues the same
// e-process instead of restarting it.
//
//   - [SignTest]: paired pass/fail, baseline against candidate. A
//     Beta-mixture e-process on the discordant pairs, one- or two-sided.
//     Its null — the change alters no case's pass probability — makes
//     every discordant pair a fair coin whatever the case, so it holds for
//     round-robin, fixed or adaptive choice of cases, and repeated runs of
//     a case need no cluster correction. The default for pass/fail.
//   - [BettingSequence]: a confidence sequence for a bounded mean (scores,
//     or paired differences in [−1, 1]), the hedged-capital betting method
//     of Waudby-Smith & Ramdas; the tightest, O(Grid) per observation.
//     [EBSequence] is its closed-form empirical-Bernstein fallback. Both
//     estimate a population mean, which needs a random design: a case
//     drawn at random for each observation, or one observation per round
//     (the round's mean over a fixed case set).
//   - [NormalMixture]: Robbins' normal-mixture boundary (mSPRT), exact for
//     a known sub-Gaussian scale and asymptotic with an estimated one; for
//     large samples.
//   - [EBenjaminiHochberg] and [EBonferroni]: several candidates against
//     one baseline, from their e-values (e-BH takes current values,
//     Bonferroni also running maxima).
//   - [PlanSignTest]: the expected spend of a SignTest under stated pass
//     probabilities per case (against its cap, the worst case), the share
//     of each decision, and the fixed-size design of equal power.
//   - [ClopperPearsonInterval]: the exact binomial interval, to report a
//     simulated error rate.
//
// The simulation in seqsim_test.go checks the claims: 40 cases with pass
// rates spread around 0.5, looked at after every pair. Under the null the
// e-processes reject in about 2–3 % of campaigns (Clopper–Pearson upper
// bounds below 5 %), while the peeked z-test and McNemar test reject in
// about half and a fifth of them. Under the alternative 0.5 → 0.7
// ([PlanSignTest]) the one-sided sign test with a cap of 200 pairs
// decides with about 95–97 % power after 35–45 % fewer pairs on average
// (more with a prior centred on the planned effect) than a fixed-size
// exact sign test of equal power; with a cap set for 75 % power the
// saving disappears, and below that the fixed design is cheaper, because
// the anytime-valid boundary is more conservative than a single final
// test. Plan for high power and let the test stop early. TestSequentialSimulation runs a small version
// with a fixed seed; the full table (2,000 campaigns each way) comes from
//
//	go test -run '^$' -bench SequentialSimulation -benchtime 1x ./stats/
//
// The cost of one update of each method is measured by
// BenchmarkSignTestObserve, BenchmarkBettingObserve (O(Grid)) and
// BenchmarkEBObserve.
//
// # Reproducible bootstrap
//
// The bootstrap takes a seed, and equal inputs with an equal seed give
// bit-identical intervals on every platform and for every GOMAXPROCS: each
// resample r draws from its own xoshiro256** stream seeded through
// splitmix64 from (seed, r), indices come from Lemire's unbiased
// multiply-shift method on 32-bit halves of each output, floating-point
// sums run in a fixed order, and the percentile is the linear
// interpolation between the two nearest order statistics. Resamples are
// spread over GOMAXPROCS goroutines but always land in their own slot. The
// golden file testdata/bootstrap.golden.json pins the output; it passes
// unchanged on amd64, arm64 (where Go fuses multiply-adds, which this
// package prevents with explicit conversions), ppc64le, riscv64 and the
// big-endian s390x.
//
// A bootstrap keeps one float64 per resample and streams its draws, so
// memory does not grow with the number of draws (resamples × units).
// Measure it on your machine with the benchmarks in bench_test.go
// (BenchmarkBootstrap100kValues10kResamples: 10⁹ draws;
// BenchmarkClusterBootstrap10kClusters10kResamples: 10⁸;
// BenchmarkBootstrapBillionDrawsMemory: 10⁶ units × 1000 resamples):
//
//	go test -run '^$' -bench . -benchtime 1x ./stats/
//
// The draw loops do not allocate
// (BenchmarkInnerLoop: 0 allocs/op); a call allocates the means array
// (8 bytes per resample), the per-cluster totals and label index, and its
// goroutines, whatever the number of draws. The reference system caps a
// bootstrap at 10⁷ draws; here the only caps are Resamples ≤ MaxResamples
// and time.
//
// # References
//
// E. Miller, "Adding Error Bars to Evals: A Statistical Approach to Language
// Model Evaluations", arXiv:2411.00640, 2024. A. C. Cameron and D. L.
// Miller, "A Practitioner's Guide to Cluster-Robust Inference", Journal of
// Human Resources 50(2), 2015. A. C. Cameron, J. B. Gelbach and D. L.
// Miller, "Bootstrap-Based Improvements for Inference with Clustered
// Errors", Review of Economics and Statistics 90(3), 2008. W. Hoeffding,
// "Probability Inequalities for Sums of Bounded Random Variables", JASA
// 58(301), 1963. E. B. Wilson, "Probable Inference, the Law of Succession,
// and Statistical Inference", JASA 22(158), 1927. B. Efron and R. J.
// Tibshirani, "An Introduction to the Bootstrap", 1993. M. J. Wichura,
// "Algorithm AS 241", Applied Statistics 37(3), 1988. D. Lemire, "Fast
// Random Integer Generation in an Interval", ACM TOMACS 29(1), 2019.
// H. Robbins, "Statistical methods related to the law of the iterated
// logarithm", Ann. Math. Statist. 41(5), 1970. J. Ville, "Étude critique
// de la notion de collectif", 1939. A. Ramdas, P. Grünwald, V. Vovk and
// G. Shafer, "Game-theoretic statistics and safe anytime-valid
// inference", Statistical Science 38(4), 2023. I. Waudby-Smith and
// A. Ramdas, "Estimating means of bounded random variables by betting",
// JRSS-B 86(1), 2024. S. R. Howard, A. Ramdas, J. McAuliffe and
// J. Sekhon, "Time-uniform, nonparametric, nonasymptotic confidence
// sequences", Ann. Statist. 49(2), 2021. R. Wang and A. Ramdas, "False
// discovery rate control with e-values", JRSS-B 84(3), 2022. C. J.
// Clopper and E. S. Pearson, "The use of confidence or fiducial limits
// illustrated in the case of the binomial", Biometrika 26(4), 1934.
package stats
