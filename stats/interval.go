package stats

import (
	"errors"
	"fmt"
	"math"
)

// Method names how an interval is computed.
type Method string

// The interval methods. The zero Method ("") means StudentT, which is valid
// for any finite values, with or without clusters.
const (
	Wilson              Method = "wilson"               // Bernoulli (0/1) values only
	Hoeffding           Method = "hoeffding"            // values bounded to [0,1]
	Normal              Method = "normal"               // CLT standard error, z quantile
	StudentT            Method = "t"                    // same standard error, t quantile, df = units-1
	PercentileBootstrap Method = "percentile-bootstrap" // seeded; resamples units
	// ClopperPearson is the exact binomial interval (0/1 values only, see
	// ClopperPearsonInterval), and the exact bound a Bounded sample without
	// spread falls back to (see ConstantInterval).
	ClopperPearson Method = "clopper-pearson"
)

// Defaults and limits of [Config], and the thresholds of the warnings.
const (
	DefaultLevel = 0.95
	// MinLevel and MaxLevel bound a confidence level other than 0 (see
	// [CheckLevel]).
	MinLevel         = 0.5
	MaxLevel         = 0.999
	DefaultResamples = 2000
	DefaultMinUnits  = 2
	// MaxResamples bounds Config.Resamples: the bootstrap keeps one float64
	// per resample (80 MB at this bound) and streams everything else.
	MaxResamples = 10_000_000
	// FewClusters: with fewer clusters than this an interval carries a
	// WarnFewClusters warning.
	FewClusters = 20
	// FewUnits: a normal or bootstrap interval over fewer independent
	// observations than this carries a WarnFewUnits warning.
	FewUnits = 30
	// FewResamples: a bootstrap with fewer resamples than this carries a
	// WarnFewResamples warning.
	FewResamples = 1000
)

// Config selects and tunes an interval method. Its zero value is a 95 %
// Student t interval over at least two units.
type Config struct {
	Method    Method
	Level     float64 // 0 means 0.95; otherwise must lie in [0.5, 0.999]
	Resamples int     // bootstrap resamples; 0 means 2000
	Seed      uint64  // bootstrap stream; equal inputs and seed give equal intervals on every platform
	MinUnits  int     // fewest independent units accepted; 0 means 2
	// Bounded declares the values bounded in [0, 1] (for Paired: before
	// and after, so each difference lies in [−1, 1]); values outside are
	// refused ([ErrDomain]). A Normal, StudentT or PercentileBootstrap
	// interval of a bounded sample without spread (every unit the same)
	// would have zero width; it falls back to the exact ConstantInterval
	// (Method ClopperPearson) and says so in a WarnDegenerate warning.
	Bounded bool
}

// Interval is an estimate with a confidence interval and what it rests on.
type Interval struct {
	Method                 Method
	Level                  float64
	Estimate, Lower, Upper float64
	StdErr                 float64 // 0 where the method defines none
	N                      int     // observations
	Units                  int     // independent units: clusters if given, else observations
	Resamples              int
	Warnings               []Warning // caveats, e.g. fewer than 20 clusters, a degenerate sample
}

// String formats the interval as "0.75 [0.452, 1.05] (t, 95%, n=4, units=4)",
// followed by the number of warnings if there are any.
func (iv Interval) String() string {
	s := fmt.Sprintf("%.4g [%.4g, %.4g] (%s, %g%%, n=%d, units=%d", iv.Estimate, iv.Lower, iv.Upper,
		iv.Method, 100*iv.Level, iv.N, iv.Units)
	if iv.Resamples > 0 {
		s += fmt.Sprintf(", resamples=%d", iv.Resamples)
	}
	s += ")"
	if len(iv.Warnings) > 0 {
		s += fmt.Sprintf(" with %d warning(s)", len(iv.Warnings))
	}
	return s
}

// settings is a Config with defaults applied and every field checked.
type settings struct {
	bounded   bool
	method    Method
	level     float64
	resamples int
	seed      uint64
	minUnits  int
}

// resolve applies defaults and reports every invalid field at once.
func (cfg Config) resolve() (settings, error) {
	s := settings{bounded: cfg.Bounded, method: cfg.Method, level: cfg.Level, resamples: cfg.Resamples, seed: cfg.Seed, minUnits: cfg.MinUnits}
	var errs []error
	switch s.method {
	case "":
		s.method = StudentT
	case Wilson, Hoeffding, Normal, StudentT, PercentileBootstrap, ClopperPearson:
	default:
		errs = append(errs, errorf(CodeMethod, "unknown method %q (want %q, %q, %q, %q, %q or %q)",
			string(s.method), Wilson, Hoeffding, Normal, StudentT, PercentileBootstrap, ClopperPearson))
	}
	level, err := CheckLevel(cfg.Level)
	if err != nil {
		errs = append(errs, err)
	}
	s.level = level
	switch {
	case s.resamples == 0:
		s.resamples = DefaultResamples
	case s.resamples < 0 || s.resamples > MaxResamples:
		errs = append(errs, errorf(CodeConfig, "Resamples is %d, want 0 (default %d) or 1..%d",
			s.resamples, DefaultResamples, MaxResamples))
	}
	switch {
	case s.minUnits == 0:
		s.minUnits = DefaultMinUnits
	case s.minUnits < 2:
		errs = append(errs, errorf(CodeConfig, "MinUnits is %d, want 0 (default %d) or at least 2",
			s.minUnits, DefaultMinUnits))
	}
	return s, errors.Join(errs...)
}

// CheckLevel is the one rule for a confidence level, used by every package
// that takes one: 0 means [DefaultLevel], which it returns; any other value
// must lie in [MinLevel, MaxLevel] and is returned as is. Otherwise (NaN
// included) it returns an [*Error] of Code [CodeLevel] (matching
// [ErrLevel]) whose Message names the value and the valid range; callers
// that validate a field show that Message at the field's path.
func CheckLevel(level float64) (float64, error) {
	if level == 0 {
		return DefaultLevel, nil
	}
	if !(level >= MinLevel && level <= MaxLevel) {
		return 0, errorf(CodeLevel, "got %v, want 0 (the default, %v) or a value in [%v, %v]",
			level, DefaultLevel, MinLevel, MaxLevel)
	}
	return level, nil
}

// Mean returns a confidence interval for the mean of values.
//
// clusters is nil for independent values, or holds one label per value:
// values sharing a label form one independent unit (an empty label makes
// its value a unit of its own). The estimate is always the plain mean
// s̄ = (1/n)·Σ sᵢ over all n values; the methods differ in the interval:
//
//   - Wilson: the Wilson score interval ([WilsonInterval]) on k = Σ sᵢ
//     successes of n. Values must be exactly 0 or 1 and independent; it is
//     refused with clusters that group values.
//   - Hoeffding: s̄ ± √(ln(2/α)·Σ_c w_c² / 2) clipped to [0, 1], α = 1 −
//     Level (Hoeffding 1963, Theorem 2). Values must lie in [0, 1]. The
//     units are the cluster means m_c, independent and bounded in [0, 1],
//     weighted by w_c = n_c/n so that Σ_c w_c·m_c = s̄; without clusters
//     w = 1/n and the half-width is √(ln(2/α)/(2n)). Valid for any n and any
//     distribution, and conservative.
//   - Normal: s̄ ± z_{1−α/2}·SE. Without clusters SE = sd(s)/√n with the
//     n−1 divisor (Miller 2024, "Adding Error Bars to Evals"). With
//     clusters SE is the cluster-robust CR1 form
//     SE = √(C/(C−1)·Σ_c S_c²)/n, S_c = Σ_{i∈c}(sᵢ − s̄) (Cameron &
//     Miller 2015, "A Practitioner's Guide to Cluster-Robust Inference";
//     see [StdErr]).
//   - StudentT: the same SE with the t quantile t_{1−α/2, units−1}, so with
//     clusters df = C−1 (Cameron, Gelbach & Miller 2008).
//   - PercentileBootstrap: resample the units with replacement Resamples
//     times, take the mean of each resample, and report the α/2 and 1−α/2
//     quantiles of those means (Efron & Tibshirani 1993, "An Introduction
//     to the Bootstrap", §13.3). With clusters whole clusters are
//     resampled. StdErr is the standard deviation of the resampled means.
//     See the package documentation for the random stream.
//   - ClopperPearson: the exact binomial interval ([ClopperPearsonInterval])
//     on k = Σ sᵢ of n; values exactly 0 or 1, independent, as for Wilson.
//
// With Config.Bounded (values in [0, 1]) a Normal, StudentT or
// PercentileBootstrap interval of units without spread falls back to the
// exact [ConstantInterval] instead of a zero-width interval.
//
// Errors: non-finite values ([ErrNonFinite]), len(clusters) ≠ len(values)
// ([ErrLength]), fewer than MinUnits units ([ErrTooFewUnits]), an invalid
// Config ([ErrLevel], [ErrMethod], [ErrConfig]), and values outside the
// method's support ([ErrDomain]). Caveats (few clusters, few units, zero
// spread, few resamples) are returned in Interval.Warnings instead.
func Mean(values []float64, clusters []string, cfg Config) (Interval, error) {
	st, err := cfg.resolve()
	if err != nil {
		return Interval{}, err
	}
	if err := checkFinite("values", values); err != nil {
		return Interval{}, err
	}
	smp, err := newSample(values, clusters, st.minUnits)
	if err != nil {
		return Interval{}, err
	}
	if st.bounded || st.method == Hoeffding {
		if err := checkUnitRange(st.method, "values", values); err != nil {
			return Interval{}, err
		}
	}
	switch st.method {
	case Wilson, ClopperPearson:
		if smp.clustered {
			return Interval{}, errorf(CodeMethod, "%s needs independent 0/1 values, but the clusters group %d values into %d units; use %q (cluster-robust) or %q (resamples clusters)",
				st.method, smp.n, smp.units(), StudentT, PercentileBootstrap)
		}
		k := 0
		for i, v := range values {
			if v != 0 && v != 1 {
				return Interval{}, errorf(CodeDomain, "%s needs values 0 or 1, values[%d] is %v; use %q for values in [0, 1] or %q / %q for any values",
					st.method, i, v, Hoeffding, StudentT, PercentileBootstrap)
			}
			if v == 1 {
				k++
			}
		}
		if st.method == ClopperPearson {
			return ClopperPearsonInterval(k, smp.n, st.level)
		}
		return WilsonInterval(k, smp.n, st.level)
	case Hoeffding:
		return smp.hoeffding(st.level, 1, 0, 1), nil
	case Normal, StudentT:
		return smp.boundedIf(st, 0, 1, func() Interval { return smp.clt(st) }), nil
	default:
		return smp.boundedIf(st, 0, 1, func() Interval { return smp.bootstrap(st) }), nil
	}
}

// Paired returns a confidence interval for the mean paired difference
// mean(after − before) of two runs over the same cases.
//
// Values are paired by position: callers align them by case id and leave
// out cases present in only one run. The analysis is the paired one
// (Miller 2024, "Adding Error Bars to Evals"): dᵢ = afterᵢ − beforeᵢ, Estimate = d̄, and the
// interval is that of [Mean] on the differences, so
// SE_paired = sd(d)/√n (with clusters the CR1 form over d), never the
// unpaired √(SE_before² + SE_after²), which ignores the shared difficulty of
// each case. clusters, when given, labels each pair.
//
// Methods as in [Mean], except:
//   - Wilson is refused ([ErrMethod]): differences lie in {−1, 0, 1}. Use
//     [McNemarExact] for an exact test on 0/1 outcomes.
//   - Hoeffding needs before and after in [0, 1], so each difference lies
//     in [−1, 1], a range of width 2: the half-width is doubled,
//     2·√(ln(2/α)·Σ_c w_c²/2), and the interval is clipped to [−1, 1]
//     (the same as mapping (d+1)/2 into [0, 1] and back).
//   - PercentileBootstrap resamples whole pairs (or whole clusters of
//     pairs), never the two runs independently.
//   - ClopperPearson is refused like Wilson. With Config.Bounded (before
//     and after in [0, 1]) differences without spread — every pair moved
//     by the same amount, say every case from fail to pass — get the exact
//     [ConstantInterval] over [−1, 1] instead of a zero-width interval.
func Paired(before, after []float64, clusters []string, cfg Config) (Interval, error) {
	st, err := cfg.resolve()
	if err != nil {
		return Interval{}, err
	}
	if len(before) != len(after) {
		return Interval{}, errorf(CodeLength, "%d before values and %d after values; pair them by case id first",
			len(before), len(after))
	}
	if err := checkFinite("before", before); err != nil {
		return Interval{}, err
	}
	if err := checkFinite("after", after); err != nil {
		return Interval{}, err
	}
	diff := make([]float64, len(after))
	for i := range after {
		diff[i] = after[i] - before[i]
	}
	smp, err := newSample(diff, clusters, st.minUnits)
	if err != nil {
		return Interval{}, err
	}
	if st.bounded || st.method == Hoeffding {
		if err := checkUnitRange(st.method, "before", before); err != nil {
			return Interval{}, err
		}
		if err := checkUnitRange(st.method, "after", after); err != nil {
			return Interval{}, err
		}
	}
	switch st.method {
	case Wilson, ClopperPearson:
		return Interval{}, errorf(CodeMethod, "%s does not apply to paired differences, which lie in {-1, 0, 1}; use %q or %q for the interval (with Config.Bounded a difference without spread gets an exact bound), or McNemarExact for an exact test",
			st.method, StudentT, PercentileBootstrap)
	case Hoeffding:
		return smp.hoeffding(st.level, 2, -1, 1), nil
	case Normal, StudentT:
		return smp.boundedIf(st, -1, 1, func() Interval { return smp.clt(st) }), nil
	default:
		return smp.boundedIf(st, -1, 1, func() Interval { return smp.bootstrap(st) }), nil
	}
}

// WilsonInterval returns the Wilson score interval for a binomial
// proportion with successes out of n independent trials (Wilson 1927,
// "Probable Inference, the Law of Succession, and Statistical Inference"):
//
//	p̂ = k/n, z = z_{1−α/2}
//	center = (p̂ + z²/(2n)) / (1 + z²/n)
//	half   = z/(1 + z²/n) · √(p̂(1−p̂)/n + z²/(4n²))
//	[max(0, center − half), min(1, center + half)]
//
// It keeps good coverage for small n and at 0/n and n/n, where the normal
// interval collapses. level 0 means 0.95. Errors: n < 1 or successes
// outside [0, n] ([ErrArgument]), level out of range ([ErrLevel]).
func WilsonInterval(successes, n int, level float64) (Interval, error) {
	level, err := CheckLevel(level)
	if err != nil {
		return Interval{}, err
	}
	if n < 1 || successes < 0 || successes > n {
		return Interval{}, errorf(CodeArgument, "%d successes out of %d trials", successes, n)
	}
	z := NormalQuantile(0.5 + level/2)
	nf := float64(n)
	p := float64(successes) / nf
	d := 1 + z*z/nf
	center := (p + z*z/(2*nf)) / d
	half := z / d * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	return Interval{
		Method:   Wilson,
		Level:    level,
		Estimate: p,
		Lower:    math.Max(0, center-half),
		Upper:    math.Min(1, center+half),
		N:        n,
		Units:    n,
	}, nil
}

// HoeffdingHalfWidth returns the two-sided Hoeffding half-width for the
// mean of n independent values in [0, 1] at the given level (Hoeffding
// 1963):
//
//	t = √(ln(2/α) / (2n)),  α = 1 − level
//
// Multiply by b − a for values in [a, b]. level 0 means 0.95; it returns
// NaN when n < 1 or the level is out of range.
func HoeffdingHalfWidth(n int, level float64) float64 {
	level, err := CheckLevel(level)
	if err != nil || n < 1 {
		return math.NaN()
	}
	return math.Sqrt(math.Log(2/(1-level)) / (2 * float64(n)))
}

// HoeffdingSampleSize returns the number of independent values in [0, 1]
// for which the two-sided Hoeffding interval at the given level has at most
// the given half-width:
//
//	n = ⌈ ln(2/α) / (2t²) ⌉
//
// Multiply t by 1/(b − a) first for values in [a, b]. level 0 means 0.95;
// it returns 0 when halfWidth is not positive and finite or the level is
// out of range.
func HoeffdingSampleSize(halfWidth, level float64) int {
	level, err := CheckLevel(level)
	if err != nil || !finite(halfWidth) || halfWidth <= 0 {
		return 0
	}
	n := math.Ceil(math.Log(2/(1-level)) / (2 * halfWidth * halfWidth))
	if n >= math.MaxInt {
		return math.MaxInt
	}
	return int(n)
}

// checkFinite reports the first non-finite value and how many there are.
func checkFinite(name string, values []float64) error {
	first, count := -1, 0
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if first < 0 {
				first = i
			}
			count++
		}
	}
	if count == 0 {
		return nil
	}
	if count == 1 {
		return errorf(CodeNonFinite, "%s[%d] is %v", name, first, values[first])
	}
	return errorf(CodeNonFinite, "%s[%d] is %v (%d non-finite values in all)", name, first, values[first], count)
}

// checkUnitRange requires every value in [0, 1], as Hoeffding's bound and
// Config.Bounded do.
func checkUnitRange(m Method, name string, values []float64) error {
	who := string(m)
	if m != Hoeffding {
		who = "Config.Bounded"
	}
	for i, v := range values {
		if v < 0 || v > 1 {
			return errorf(CodeDomain, "%s needs values in [0, 1], %s[%d] is %v; use %q or %q for unbounded values",
				who, name, i, v, StudentT, PercentileBootstrap)
		}
	}
	return nil
}
