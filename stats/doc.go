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
package stats
