package stats

import "math"

// FisherExactLess returns the one-sided p-value of Fisher's exact test
// that the success rate of a second group is lower than that of a first:
// k1 successes in n1 trials, then k2 in n2 (Fisher 1935; the conditional
// test of a 2×2 table). Given the total K = k1 + k2, the successes of the
// second group are hypergeometric, and
//
//	p = P(X ≤ k2) = Σ_{x = max(0, K−n1)}^{k2} C(n2, x)·C(n1, K−x) / C(n1+n2, K)
//
// It is exact for any n, small ones included: 3 of 3 against 0 of 3 gives
// 1/20, 2 of 2 against 0 of 2 gives 1/6, and 1 of 1 against 0 of 1 gives
// 1/2, so a fall from all to none is significant at 5 % only from three
// trials a side. Swap the groups for the other direction. Counts outside
// 0 ≤ k ≤ n, or n1 + n2 = 0, give NaN.
func FisherExactLess(k1, n1, k2, n2 int) float64 {
	if k1 < 0 || k2 < 0 || k1 > n1 || k2 > n2 || n1+n2 == 0 {
		return math.NaN()
	}
	total := k1 + k2
	denom := logChoose(n1+n2, total)
	p := 0.0
	for x := max(0, total-n1); x <= k2; x++ {
		p += math.Exp(logChoose(n2, x) + logChoose(n1, total-x) - denom)
	}
	return math.Min(1, p)
}
