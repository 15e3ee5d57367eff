package stats

import "math"

// SampleSize returns the number of paired cases needed to detect a mean
// paired difference of delta with a two-sided test at level alpha and the
// given power (1−β), when the per-case variance of the paired difference is
// variance (ω² in the formula; estimate it from a pilot run as the sample
// variance of the per-case differences, with run noise included as
// E[σ_A²]/K_A + E[σ_B²]/K_B):
//
//	n = ⌈ (z_{1−α/2} + z_{1−β})² · ω² / δ² ⌉
//
// (normal-approximation power analysis for a paired mean: Chow, Shao &
// Wang, "Sample Size Calculations in Clinical Research", ch. 3; Miller 2024,
// "Adding Error Bars to Evals", section on power analysis). At α = 0.05 and power 0.8 the factor is
// (1.959964 + 0.841621)² = 7.8489. The result is at least 2, the fewest
// units a standard error needs; it is 0 when an argument is out of range
// (delta zero or non-finite, variance negative or non-finite, alpha or power
// outside (0, 1)), and math.MaxInt when the size does not fit an int. With
// clustered cases divide by the design effect ([DesignEffect]) first: the
// result then counts effective cases.
func SampleSize(delta, variance, alpha, power float64) int {
	if !finite(delta) || delta == 0 || !finite(variance) || variance < 0 || !openUnit(alpha) || !openUnit(power) {
		return 0
	}
	z := NormalQuantile(1-alpha/2) + NormalQuantile(power)
	n := math.Ceil(z * z * variance / (delta * delta))
	if n >= math.MaxInt {
		return math.MaxInt
	}
	return max(2, int(n))
}

// MinimumDetectableEffect returns the smallest mean paired difference that
// n paired cases detect with a two-sided test at level alpha with the given
// power, when the per-case variance of the paired difference is variance
// (the inverse of [SampleSize]):
//
//	MDE = (z_{1−α/2} + z_{1−β}) · √(ω² / n)
//
// It returns NaN when an argument is out of range (n < 1, variance negative
// or non-finite, alpha or power outside (0, 1)).
func MinimumDetectableEffect(n int, variance, alpha, power float64) float64 {
	if n < 1 || !finite(variance) || variance < 0 || !openUnit(alpha) || !openUnit(power) {
		return math.NaN()
	}
	z := NormalQuantile(1-alpha/2) + NormalQuantile(power)
	return z * math.Sqrt(variance/float64(n))
}

// DesignEffect returns the variance inflation of a clustered sample with
// mean cluster size m̄ and intra-cluster correlation icc (Kish 1965,
// "Survey Sampling"):
//
//	deff = 1 + (m̄ − 1)·ICC
//
// n cases in clusters carry as much information as n/deff independent
// cases. It returns NaN when meanClusterSize < 1 or an argument is not
// finite.
func DesignEffect(meanClusterSize, icc float64) float64 {
	if !finite(meanClusterSize) || !finite(icc) || meanClusterSize < 1 {
		return math.NaN()
	}
	return 1 + (meanClusterSize-1)*icc
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func openUnit(x float64) bool { return x > 0 && x < 1 }
