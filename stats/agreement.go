package stats

import (
	"math"
	"slices"
)

// Agreement between raters: Cohen's kappa for two raters over categories,
// and Krippendorff's alpha for any number of raters with missing values,
// over nominal categories or interval scores.
//
// Both come with a percentile bootstrap interval over units (a unit is one
// rated item: one labelled run), seeded like every bootstrap of this
// package: resample r draws its units from the stream newStream(Seed, r),
// so equal inputs and seed give equal intervals on every platform. A
// resample in which the coefficient is undefined (every drawn unit in one
// category, so chance agreement is perfect) is left out and counted in a
// WarnDegenerate warning.

// AlphaMetric is the difference function of Krippendorff's alpha.
type AlphaMetric string

// The metrics.
const (
	// Nominal: δ(c, k) = 0 when c = k, else 1. Values are category codes.
	Nominal AlphaMetric = "nominal"
	// IntervalMetric: δ(c, k) = (c − k)². Values are scores.
	IntervalMetric AlphaMetric = "interval"
)

// CohenKappa is Cohen's kappa between two raters who each put the same n
// units in categories: κ = (p_o − p_e)/(1 − p_e), where p_o is the share of
// units on which they agree and p_e = Σ_c (a_c/n)(b_c/n) the agreement
// expected by chance from each rater's own category shares (Cohen 1960, "A
// Coefficient of Agreement for Nominal Scales"). a[i] and b[i] are the
// categories the two raters gave unit i.
//
// The interval is the percentile bootstrap over units (cfg.Method must be
// "" or PercentileBootstrap; Level, Resamples, Seed and MinUnits as for
// [Mean]). Errors: len(a) ≠ len(b) ([ErrLength]), fewer than MinUnits
// units ([ErrTooFewUnits]), a kappa that is undefined because both raters
// put every unit in one and the same category, so p_e = 1 ([ErrDomain]),
// and an invalid Config.
func CohenKappa(a, b []string, cfg Config) (Interval, error) {
	st, err := agreementSettings(cfg)
	if err != nil {
		return Interval{}, err
	}
	if len(a) != len(b) {
		return Interval{}, errorf(CodeLength, "rater a has %d units, rater b %d; give both raters' category for every unit", len(a), len(b))
	}
	if len(a) < st.minUnits {
		return Interval{}, errorf(CodeTooFewUnits, "%d units, need at least %d (Config.MinUnits)", len(a), st.minUnits)
	}
	// Code categories as small integers once.
	codes := map[string]int{}
	code := func(s string) int {
		c, ok := codes[s]
		if !ok {
			c = len(codes)
			codes[s] = c
		}
		return c
	}
	pairs := make([][2]int, len(a))
	for i := range a {
		pairs[i] = [2]int{code(a[i]), code(b[i])}
	}
	k := len(codes)
	stat := func(idx []int) float64 {
		ca, cb := make([]float64, k), make([]float64, k)
		agree := 0.0
		for _, i := range idx {
			p := pairs[i]
			ca[p[0]]++
			cb[p[1]]++
			if p[0] == p[1] {
				agree++
			}
		}
		n := float64(len(idx))
		pe := 0.0
		for c := range k {
			pe += float64(ca[c] * cb[c])
		}
		pe /= n * n
		if pe >= 1 {
			return math.NaN()
		}
		return (agree/n - pe) / (1 - pe)
	}
	all := identity(len(pairs))
	est := stat(all)
	if math.IsNaN(est) {
		return Interval{}, errorf(CodeDomain, "kappa is undefined: both raters put all %d units in category %q, so chance agreement is 1; report the agreement rate instead", len(a), a[0])
	}
	return bootstrapUnits(est, len(pairs), len(pairs), stat, st), nil
}

// KrippendorffAlpha is Krippendorff's alpha over units, each holding the
// values the raters gave it (a rater who did not rate a unit gives none,
// so missing values are simply absent). α = 1 − D_o/D_e with the
// coincidence-matrix definitions of Krippendorff (2011, "Computing
// Krippendorff's Alpha-Reliability"): over the pairable values (those of
// units with at least two), n of them,
//
//	D_o = (1/n) Σ_u Σ_{i≠j in u} δ(v_i, v_j)/(m_u − 1)
//	D_e = 1/(n(n − 1)) Σ_{i≠j} δ(v_i, v_j)
//
// where m_u is the number of values of unit u, and δ is the metric's
// difference. Units with fewer than two values are not pairable and are
// left out (N counts the values used, Units the units).
//
// The interval is the percentile bootstrap over pairable units, as for
// [CohenKappa]. Errors: non-finite values ([ErrNonFinite]), fewer than
// MinUnits pairable units ([ErrTooFewUnits]), an alpha that is undefined
// because every pairable value is the same, so D_e = 0 ([ErrDomain]), an
// unknown metric ([ErrMethod]) and an invalid Config.
func KrippendorffAlpha(units [][]float64, metric AlphaMetric, cfg Config) (Interval, error) {
	st, err := agreementSettings(cfg)
	if err != nil {
		return Interval{}, err
	}
	if metric != Nominal && metric != IntervalMetric {
		return Interval{}, errorf(CodeMethod, "unknown alpha metric %q (want %q or %q)", string(metric), Nominal, IntervalMetric)
	}
	var pairable [][]float64
	values := 0
	for _, u := range units {
		if err := checkFinite("unit values", u); err != nil {
			return Interval{}, err
		}
		if len(u) >= 2 {
			pairable = append(pairable, u)
			values += len(u)
		}
	}
	if len(pairable) < st.minUnits {
		return Interval{}, errorf(CodeTooFewUnits, "%d pairable units (units with two or more values), need at least %d (Config.MinUnits)", len(pairable), st.minUnits)
	}
	stat := func(idx []int) float64 { return alphaOf(pairable, idx, metric) }
	est := stat(identity(len(pairable)))
	if math.IsNaN(est) {
		return Interval{}, errorf(CodeDomain, "alpha is undefined: all %d pairable values are equal, so there is no expected disagreement; report the agreement rate instead", values)
	}
	return bootstrapUnits(est, values, len(pairable), stat, st), nil
}

// alphaOf is alpha over the units idx of pairable (NaN when D_e = 0).
// Sums over ordered pairs use Σ_{i,j} δ = m² − Σ_c m_c² (nominal) and
// Σ_{i,j} (x_i − x_j)² = 2m Σ x² − 2(Σ x)² (interval); the pairs i = j add
// nothing to either.
func alphaOf(units [][]float64, idx []int, metric AlphaMetric) float64 {
	observed := 0.0 // Σ_u W_u/(m_u − 1)
	n := 0.0
	pooledCount := map[float64]float64{}
	pooledSum, pooledSq := 0.0, 0.0
	for _, i := range idx {
		u := units[i]
		m := float64(len(u))
		n += m
		var w float64
		switch metric {
		case Nominal:
			counts := map[float64]float64{}
			for _, v := range u {
				counts[v]++
				pooledCount[v]++
			}
			same := 0.0
			for _, c := range counts {
				same += c * c
			}
			w = m*m - same
		default:
			s, sq := 0.0, 0.0
			for _, v := range u {
				s += v
				sq += float64(v * v)
			}
			pooledSum += s
			pooledSq += sq
			w = 2*m*sq - 2*s*s
		}
		observed += w / (m - 1)
	}
	var expected float64
	switch metric {
	case Nominal:
		same := 0.0
		for _, c := range sortedKeysF(pooledCount) {
			same += pooledCount[c] * pooledCount[c]
		}
		expected = n*n - same
	default:
		expected = 2*n*pooledSq - 2*pooledSum*pooledSum
	}
	if expected <= 1e-12*math.Max(1, n*n) {
		return math.NaN()
	}
	return 1 - (n-1)*observed/expected
}

// sortedKeysF returns m's keys in order, so that sums run in a fixed order.
func sortedKeysF(m map[float64]float64) []float64 {
	keys := make([]float64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// agreementSettings resolves cfg for a bootstrap over units.
func agreementSettings(cfg Config) (settings, error) {
	st, err := cfg.resolve()
	if err != nil {
		return settings{}, err
	}
	if cfg.Method != "" && cfg.Method != PercentileBootstrap {
		return settings{}, errorf(CodeMethod, "agreement intervals are %q only, got %q", PercentileBootstrap, string(cfg.Method))
	}
	st.method = PercentileBootstrap
	return st, nil
}

func identity(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// bootstrapUnits is the percentile bootstrap of stat over units units:
// resample r draws units indices with replacement from newStream(seed, r).
// Resamples where stat is NaN are left out and counted in a warning.
func bootstrapUnits(est float64, n, units int, stat func(idx []int) float64, st settings) Interval {
	iv := Interval{Method: PercentileBootstrap, Level: st.level, Estimate: est, N: n, Units: units, Resamples: st.resamples}
	draws := make([]float64, 0, st.resamples)
	idx := make([]int, units)
	for r := range st.resamples {
		g := newStream(st.seed, uint64(r))
		var j uint64
		for i := range idx {
			g, j = index64(g, uint64(units))
			idx[i] = int(j)
		}
		if v := stat(idx); !math.IsNaN(v) {
			draws = append(draws, v)
		}
	}
	if units < FewUnits {
		iv.Warnings = append(iv.Warnings, warnf(WarnFewUnits, "%d units (fewer than %d): the bootstrap interval under-covers; label more runs", units, FewUnits))
	}
	if st.resamples < FewResamples {
		iv.Warnings = append(iv.Warnings, warnf(WarnFewResamples, "%d resamples (fewer than %d): the tail quantiles are unstable; use 2000 or more",
			st.resamples, FewResamples))
	}
	if dropped := st.resamples - len(draws); dropped > 0 {
		iv.Warnings = append(iv.Warnings, warnf(WarnDegenerate, "%d of %d resamples drew units without any variation, where the coefficient is undefined; they are left out, so the interval is optimistic",
			dropped, st.resamples))
	}
	if len(draws) == 0 {
		iv.Lower, iv.Upper = est, est
		return iv
	}
	slices.Sort(draws)
	tail := (1 - st.level) / 2
	iv.Lower = percentile(draws, tail)
	iv.Upper = percentile(draws, 1-tail)
	iv.StdErr = sampleSD(draws)
	return iv
}
