package stats

import "math"

// ClopperPearsonInterval returns the exact (Clopper–Pearson) interval for
// a binomial proportion with successes out of n independent trials
// (Clopper & Pearson 1934, "The Use of Confidence or Fiducial Limits
// Illustrated in the Case of the Binomial", Biometrika 26(4)): the bounds
// are the proportions at which the observed count sits on a tail of
// probability α/2,
//
//	lower: P(X ≥ k; p) = α/2  (0 when k = 0)
//	upper: P(X ≤ k; p) = α/2  (1 when k = n)
//
// found by bisection on [BinomialCDF]; at k = n the lower bound is
// (α/2)^(1/n), at k = 0 the upper bound 1 − (α/2)^(1/n). It covers at
// least the level for every n and p, and is wider than [WilsonInterval].
// level 0 means 0.95. Errors: n < 1 or successes outside [0, n]
// ([ErrArgument]), level out of range ([ErrLevel]).
func ClopperPearsonInterval(successes, n int, level float64) (Interval, error) {
	level, err := CheckLevel(level)
	if err != nil {
		return Interval{}, err
	}
	if n < 1 || successes < 0 || successes > n {
		return Interval{}, errorf(CodeArgument, "%d successes out of %d trials", successes, n)
	}
	half := (1 - level) / 2
	iv := Interval{Method: ClopperPearson, Level: level, Estimate: float64(successes) / float64(n), Lower: 0, Upper: 1, N: n, Units: n}
	if successes > 0 {
		// P(X ≥ k; p) = 1 − CDF(k−1; p) grows with p.
		iv.Lower = bisectUnit(func(p float64) float64 { return 1 - BinomialCDF(successes-1, n, p) }, half, true)
	}
	if successes < n {
		// P(X ≤ k; p) falls as p grows.
		iv.Upper = bisectUnit(func(p float64) float64 { return BinomialCDF(successes, n, p) }, half, false)
	}
	return iv, nil
}

// bisectUnit finds p in [0, 1] with f(p) = target, f monotone (increasing
// when up).
func bisectUnit(f func(float64) float64, target float64, up bool) float64 {
	lo, hi := 0.0, 1.0
	for range 100 {
		mid := (lo + hi) / 2
		if (f(mid) < target) == up {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// ConstantInterval returns the exact interval for the mean of units
// independent units bounded in [lo, hi] that all took the same value v: a
// sample without spread, for which a t, normal or bootstrap interval has
// zero width and claims a certainty a few units cannot give. With
// u = (v − lo)/(hi − lo) and a = (α/2)^(1/units), the interval of the mean
// of the mapped units is
//
//	[u·a, 1 − (1 − u)·a]
//
// mapped back to [lo, hi]. For u = 1 (every unit at the top: every case
// passed, or every pair went from fail to pass) it is the Clopper–Pearson
// interval of units successes out of units ([ClopperPearsonInterval]),
// for u = 0 that of none; in between it is the same bound by Markov's
// inequality: for independent Xᵢ in [0, 1] with mean μ,
// P(every Xᵢ ≥ u) ≤ E[∏Xᵢ]/uⁿ = (μ/u)ⁿ, which is below α/2 when μ < u·a
// (and symmetrically for the upper bound with 1 − Xᵢ). Its Method is
// ClopperPearson. level 0 means 0.95. Errors: units < 1
// ([ErrTooFewUnits]), v outside [lo, hi] or lo ≥ hi ([ErrDomain]), a
// non-finite argument ([ErrNonFinite]), level out of range ([ErrLevel]).
func ConstantInterval(v float64, units int, lo, hi, level float64) (Interval, error) {
	level, err := CheckLevel(level)
	if err != nil {
		return Interval{}, err
	}
	if err := checkFinite("arguments", []float64{v, lo, hi}); err != nil {
		return Interval{}, err
	}
	if units < 1 {
		return Interval{}, errorf(CodeTooFewUnits, "%d units, need at least 1", units)
	}
	if !(lo < hi) || v < lo || v > hi {
		return Interval{}, errorf(CodeDomain, "the value %v is not inside the range [%v, %v]", v, lo, hi)
	}
	width := hi - lo
	u := (v - lo) / width
	a := math.Pow((1-level)/2, 1/float64(units))
	return Interval{
		Method: ClopperPearson, Level: level, Estimate: v,
		Lower: lo + width*(u*a), Upper: lo + width*(1-(1-u)*a),
		N: units, Units: units,
	}, nil
}

// spreadless reports whether every independent unit (value, or cluster
// mean) is the same, allowing for the rounding of the means.
func (s *sample) spreadless() bool {
	if s.n == 0 {
		return false
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	if s.clustered {
		for _, t := range s.totals {
			m := t.sum / t.size
			lo, hi = math.Min(lo, m), math.Max(hi, m)
		}
	} else {
		for _, v := range s.values {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return hi-lo <= 1e-12*math.Max(1, math.Abs(s.mean))
}

// boundedIf is the interval of a sample by a method that may give a
// zero-width interval: the method's own, unless Config.Bounded declared the
// units bounded in [lo, hi] and they have no spread, when it is the exact
// ConstantInterval with a WarnDegenerate warning naming the fallback.
func (s *sample) boundedIf(st settings, lo, hi float64, compute func() Interval) Interval {
	if !st.bounded || !s.spreadless() {
		return compute()
	}
	units := s.units()
	iv, err := ConstantInterval(math.Min(hi, math.Max(lo, s.mean)), units, lo, hi, st.level)
	if err != nil {
		return compute() // unreachable: the values were checked
	}
	iv.N = s.n
	iv.Warnings = append(s.warnings(st.method), warnf(WarnDegenerate,
		"no spread between the %d units (every one is %.4g), so a %s interval would have zero width; the interval is the exact %s bound for units bounded in [%g, %g] instead",
		units, s.mean, st.method, ClopperPearson, lo, hi))
	return iv
}
