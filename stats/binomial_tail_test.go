package stats

import (
	"math"
	"testing"
)

// Far above the mean, P(X = k) underflows to 0 in float64, and a sum
// started there stays 0 although P(X ≤ k) is all but 1. The CDF then
// broke the Clopper–Pearson interval of a near-perfect count: 1990 of
// 2000 got [0, 0]. The mirror P(X ≤ k; n, p) = 1 − P(X ≤ n−k−1; n, 1−p)
// must hold everywhere.
func TestBinomialCDFFarAboveTheMean(t *testing.T) {
	if got := BinomialCDF(899, 939, 0.3); math.Abs(got-1) > 1e-12 {
		t.Errorf("BinomialCDF(899, 939, 0.3) = %g, want 1", got)
	}
	for _, n := range []int{10, 200, 939, 5000} {
		for _, p := range []float64{0.001, 0.05, 0.3, 0.5, 0.9, 0.999} {
			for _, k := range []int{0, n / 10, n / 3, n / 2, 9 * n / 10, n - 2} {
				a, b := BinomialCDF(k, n, p), 1-BinomialCDF(n-k-1, n, 1-p)
				if math.Abs(a-b) > 1e-9 {
					t.Errorf("n=%d p=%v k=%d: CDF %.12g, mirror %.12g", n, p, k, a, b)
				}
			}
		}
	}
	iv, err := ClopperPearsonInterval(1990, 2000, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if !(iv.Lower > 0.98 && iv.Lower < 0.995 && iv.Upper > 0.995 && iv.Upper < 1) {
		t.Errorf("ClopperPearsonInterval(1990, 2000) = [%g, %g], want about [0.9908, 0.9976]", iv.Lower, iv.Upper)
	}
}
