// Package stats turns eval results into estimates with honest uncertainty:
// confidence intervals for a mean score and for the paired difference
// between two systems, the variance components of repeated runs, exact and
// approximate tests, power analysis, pass@k, multiplicity corrections, and
// sequential (anytime-valid) decisions. It imports nothing else from this
// module.
//
// # Units
//
// The independent unit is the case, not the run: reduce repeated runs of a
// case to its mean first ([ReduceRepeats]). When cases are not independent
// of each other (variants of one scenario, tasks from one repository), give
// each value a cluster label; the cluster is then the unit, and every
// method accounts for it (cluster-robust standard errors, the cluster
// bootstrap), or refuses it ([Wilson] needs independent 0/1 draws).
//
// # What to call
//
//   - A mean with its interval: [Mean], by [StudentT] (the default),
//     [Normal], [Wilson], [Hoeffding], [PercentileBootstrap] (seeded,
//     bit-reproducible on every platform) or [ClopperPearson].
//   - Two systems on the same cases: [Paired]; for 0/1 outcomes
//     [McNemarExact] on the discordant pairs, and [FisherExactLess] for one
//     case's pass rate over its repetitions.
//   - Planning: [SampleSize] and [MinimumDetectableEffect].
//   - Several tests at once: [HolmBonferroni] and [BenjaminiHochberg].
//   - Results looked at as they arrive, stopped whenever decided:
//     [SignTest] (paired pass/fail), [BettingSequence] and [EBSequence]
//     (bounded means), [NormalMixture] (large samples),
//     [EBenjaminiHochberg] and [EBonferroni] (several candidates), and
//     [PlanSignTest] for the expected spend. Each keeps a small JSON state
//     to resume from with bit-identical results.
//
// Every result carries its method, level, number of observations and of
// independent units, and its caveats as [Warning] values (few clusters, few
// units, zero spread, few resamples): a caveat is never an error. Errors
// are reserved for input that cannot be analysed; each is an [*Error] that
// matches a sentinel with errors.Is ([ErrTooFewUnits], ...). Both carry a
// stable [Code], so a program maps codes to its own vocabulary instead of
// reading text.
//
// The assumptions of each method, the simulation that checks the
// sequential methods' error rates, how the bootstrap is made reproducible,
// the benchmarks and the references are in the repository's
// docs/compare-and-statistics.md ("The stats package in detail").
package stats
