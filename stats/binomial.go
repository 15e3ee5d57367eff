package stats

import "math"

// BinomialCDF returns P(X ≤ k) for X ~ Binomial(n, p):
//
//	Σ_{i=0..k} C(n,i)·pⁱ·(1−p)ⁿ⁻ⁱ
//
// summed from i = k downwards with the ratio
// P(X=i−1)/P(X=i) = i/(n−i+1)·(1−p)/p, starting from P(X=k) computed in
// log space (the recurrence of Johnson, Kemp & Kotz, "Univariate Discrete
// Distributions", 3rd ed., ch. 3); for k above the mean n·p it is 1 minus
// the upper tail, summed upwards the same way, since there P(X=k) can
// underflow while the CDF is all but 1. It returns NaN when n < 0 or p is outside
// [0, 1].
func BinomialCDF(k, n int, p float64) float64 {
	switch {
	case n < 0 || math.IsNaN(p) || p < 0 || p > 1:
		return math.NaN()
	case k < 0:
		return 0
	case k >= n:
		return 1
	case p == 0:
		return 1
	case p == 1:
		return 0
	}
	if float64(k) > float64(n)*p {
		// Above the mean P(X = k) may underflow to 0 while P(X ≤ k) is all
		// but 1: sum the upper tail instead, where the terms shrink.
		return math.Max(0, 1-binomialUpper(k+1, n, p))
	}
	term := math.Exp(logChoose(n, k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
	ratio := (1 - p) / p
	sum := term
	for i := k; i > 0; i-- {
		term *= float64(i) / float64(n-i+1) * ratio
		sum += term
		if term < sum*1e-17 && float64(i) < float64(n)*p {
			// Past the mode the terms only shrink geometrically.
			break
		}
	}
	return math.Min(1, sum)
}

// binomialUpper returns P(X ≥ k) for X ~ Binomial(n, p), 0 < k ≤ n and
// 0 < p < 1, summed from i = k upwards with the ratio
// P(X=i+1)/P(X=i) = (n−i)/(i+1)·p/(1−p); for k above the mean the terms
// only shrink.
func binomialUpper(k, n int, p float64) float64 {
	term := math.Exp(logChoose(n, k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
	ratio := p / (1 - p)
	sum := term
	for i := k; i < n; i++ {
		term *= float64(n-i) / float64(i+1) * ratio
		sum += term
		if term < sum*1e-17 && float64(i) > float64(n)*p {
			break
		}
	}
	return math.Min(1, sum)
}

// logChoose returns ln C(n, k).
func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// McNemarExact returns the exact two-sided p-value of McNemar's test on the
// discordant pairs of a paired comparison: b = cases the first system got
// right and the second wrong, c = the reverse (McNemar 1947; the exact
// binomial form):
//
//	p = min(1, 2·BinomCDF(min(b, c); b+c, ½))
//
// Concordant pairs carry no information and are not passed. b = c = 0 gives
// 1. Negative counts give NaN.
func McNemarExact(b, c int) float64 {
	if b < 0 || c < 0 {
		return math.NaN()
	}
	if b+c == 0 {
		return 1
	}
	return math.Min(1, 2*BinomialCDF(min(b, c), b+c, 0.5))
}

// McNemarChiSquare returns McNemar's continuity-corrected statistic and its
// χ²₁ p-value (Edwards 1948):
//
//	χ² = max(0, |b−c| − 1)² / (b+c),  p = P(χ²₁ > χ²) = erfc(√(χ²/2))
//
// The correction is clamped at zero so b = c gives χ² = 0 and p = 1. Prefer
// [McNemarExact] when b+c is small (below about 25). b = c = 0 gives (0, 1);
// negative counts give NaN.
func McNemarChiSquare(b, c int) (stat, p float64) {
	if b < 0 || c < 0 {
		return math.NaN(), math.NaN()
	}
	if b+c == 0 {
		return 0, 1
	}
	d := math.Max(0, math.Abs(float64(b-c))-1)
	stat = d * d / float64(b+c)
	return stat, math.Erfc(math.Sqrt(stat / 2))
}
