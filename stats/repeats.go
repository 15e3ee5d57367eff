package stats

import (
	"fmt"
	"math"
)

// Repeats is the reduction of repeated runs per case to per-case means,
// with the variance components that say whether more runs per case or more
// cases would narrow the interval.
//
// The model (Miller 2024, "Adding Error Bars to Evals", section on
// resampling): run k of case i scores s_ik = x_i + ε_ik, where x_i is the
// case's expected score and Var(ε_ik) = σ_i² is run-to-run noise. Then
// Var(s̄_i) = Var(x) + E[σ²]/K and SE(s̄) = √((Var(x) + E[σ²]/K)/n).
type Repeats struct {
	// Means holds each case's mean over its runs, in input order. Pass it
	// to Mean or Paired for an interval: the cases, not the runs, are the
	// independent units.
	Means []float64
	Cases int // n, the number of cases
	Runs  int // total runs over all cases
	// Mean is the grand mean s̄ = (1/n)·Σ s̄_i.
	Mean float64
	// StdErr is the CLT standard error of the case means,
	// sd(s̄_i)/√n. It includes the run noise; it is the standard error to
	// report.
	StdErr float64
	// WithinVar is Ê[σ²] = (1/n)·Σ σ̂_i², with σ̂_i² the sample variance
	// (divisor K_i−1) of case i's runs: the run-to-run noise.
	WithinVar float64
	// BetweenVar is V̂ar(x) = max(0, var(s̄_i) − (1/n)·Σ σ̂_i²/K_i): the
	// spread of the cases' expected scores.
	BetweenVar float64
	// RunShare is the share of Var(s̄_i) due to run noise at the current
	// runs per case, (1/n)·Σ(σ̂_i²/K_i) / var(s̄_i), clamped to [0, 1].
	// Near 1, more runs per case narrow the interval; near 0, only more
	// cases do.
	RunShare float64
	Warnings []Warning
}

// ReduceRepeats reduces runs[i], the scores of case i's repeated runs, to
// per-case means and estimates the variance components:
//
//	s̄_i     = (1/K_i)·Σ_k s_ik
//	σ̂_i²    = (1/(K_i−1))·Σ_k (s_ik − s̄_i)²
//	Ê[σ²]   = (1/n)·Σ_i σ̂_i²
//	V̂ar(x)  = max(0, var(s̄_i) − (1/n)·Σ_i σ̂_i²/K_i)
//	SE      = √(var(s̄_i)/n)
//
// with var the sample variance (divisor n−1). With the same K for every
// case, the correction term is Ê[σ²]/K as in Miller 2024. Runs per case
// may differ; each case needs at least two runs (the within-case variance
// is otherwise unknown), and there must be at least two cases. Errors:
// [ErrTooFewUnits] and [ErrNonFinite]. A negative V̂ar(x) estimate is
// clamped to zero with a [WarnDegenerate] warning.
func ReduceRepeats(runs [][]float64) (Repeats, error) {
	n := len(runs)
	if n < 2 {
		return Repeats{}, errorf(CodeTooFewUnits, "%d cases, need at least 2", n)
	}
	r := Repeats{Means: make([]float64, n), Cases: n}
	noise := 0.0 // Σ σ̂_i²/K_i
	for i, case_ := range runs {
		k := len(case_)
		if k < 2 {
			return Repeats{}, errorf(CodeTooFewUnits, "case %d has %d run(s), need at least 2 per case to separate run noise from case difficulty", i, k)
		}
		if err := checkFinite(fmt.Sprintf("runs[%d]", i), case_); err != nil {
			return Repeats{}, err
		}
		m := mean(case_)
		ss := 0.0
		for _, v := range case_ {
			e := v - m
			ss += float64(e * e)
		}
		v := ss / float64(k-1)
		r.Means[i] = m
		r.Runs += k
		r.WithinVar += v
		noise += v / float64(k)
	}
	nf := float64(n)
	r.WithinVar /= nf
	noise /= nf
	r.Mean = mean(r.Means)
	total := sampleVar(r.Means)
	r.StdErr = math.Sqrt(total / nf)
	r.BetweenVar = total - noise
	if r.BetweenVar < 0 {
		r.Warnings = append(r.Warnings, warnf(WarnDegenerate, "the between-case variance estimate %.3g is negative and was set to 0: the case means vary no more than run noise alone explains",
			r.BetweenVar))
		r.BetweenVar = 0
	}
	if total > 0 {
		r.RunShare = math.Min(1, noise/total)
	}
	return r, nil
}

// ProjectedStdErr returns the standard error of the grand mean projected
// for the given number of cases with k runs each, from the estimated
// components (Miller 2024, "Adding Error Bars to Evals"):
//
//	SE(n, K) = √( (V̂ar(x) + Ê[σ²]/K) / n )
//
// Compare, say, ProjectedStdErr(r.Cases, 2*K) with
// ProjectedStdErr(2*r.Cases, K) to see whether doubling runs or doubling
// cases buys more. It returns NaN when cases or k is below 1.
func (r Repeats) ProjectedStdErr(cases, k int) float64 {
	if cases < 1 || k < 1 {
		return math.NaN()
	}
	return math.Sqrt((r.BetweenVar + r.WithinVar/float64(k)) / float64(cases))
}
