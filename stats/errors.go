package stats

import "errors"

// Errors returned by this package. Each is wrapped with detail (which value,
// which field, what to use instead), so test for them with [errors.Is].
//
// The sentinels of the second block below are never returned as errors:
// they appear in [Interval.Warnings] and [Repeats.Warnings], because a caveat
// about a result is not a failure to compute it.
var (
	// ErrNonFinite: an input value is NaN or ±Inf.
	ErrNonFinite = errors.New("stats: non-finite value")
	// ErrLength: slices that must correspond position by position have
	// different lengths (values and clusters, before and after).
	ErrLength = errors.New("stats: mismatched lengths")
	// ErrTooFewUnits: fewer independent units (observations, or clusters when
	// clusters are given) than Config.MinUnits.
	ErrTooFewUnits = errors.New("stats: too few independent units")
	// ErrLevel: a confidence level outside [0.5, 0.999].
	ErrLevel = errors.New("stats: confidence level out of range")
	// ErrMethod: an unknown method, or a method that does not apply to the
	// data as given (Wilson with clusters or on paired differences).
	ErrMethod = errors.New("stats: method does not apply")
	// ErrDomain: a value outside the support the method requires (Wilson
	// needs exactly 0 or 1, Hoeffding needs [0, 1]).
	ErrDomain = errors.New("stats: value outside the method's support")
	// ErrConfig: a Config field other than Method and Level is invalid
	// (negative Resamples or MinUnits, MinUnits of 1, Resamples above
	// MaxResamples).
	ErrConfig = errors.New("stats: invalid config")
	// ErrArgument: a count or probability argument is out of range
	// (for example pass@k with fewer attempts than k).
	ErrArgument = errors.New("stats: invalid argument")
)

// Warnings attached to results. A warning means the result was computed but
// deserves a caveat; it is never returned as the error of a call.
var (
	// ErrFewClusters: clusters were given and there are fewer than
	// FewClusters of them. Cluster-robust intervals over-reject with few
	// clusters (Cameron, Gelbach & Miller 2008), and the percentile cluster
	// bootstrap under-covers.
	ErrFewClusters = errors.New("stats: few clusters")
	// ErrFewUnits: an interval that relies on a normal approximation or on
	// the bootstrap was computed from fewer than FewUnits independent
	// observations.
	ErrFewUnits = errors.New("stats: few units")
	// ErrDegenerate: the sample shows no variation between units, so the
	// interval has zero width and says nothing about uncertainty; or a
	// variance component was negative and clamped to zero.
	ErrDegenerate = errors.New("stats: degenerate sample")
	// ErrFewResamples: a percentile bootstrap with fewer than 1000
	// resamples; its tail quantiles are unstable.
	ErrFewResamples = errors.New("stats: few bootstrap resamples")
)
