package stats

import (
	"fmt"
	"math"
	"testing"
)

func TestSampleSizeInvalid(t *testing.T) {
	for _, tt := range []struct{ delta, variance, alpha, power float64 }{
		{0, 0.25, 0.05, 0.8},
		{math.NaN(), 0.25, 0.05, 0.8},
		{0.03, -1, 0.05, 0.8},
		{0.03, math.Inf(1), 0.05, 0.8},
		{0.03, 0.25, 0, 0.8},
		{0.03, 0.25, 1, 0.8},
		{0.03, 0.25, 0.05, 1},
	} {
		t.Run(fmt.Sprint(tt), func(t *testing.T) {
			if n := SampleSize(tt.delta, tt.variance, tt.alpha, tt.power); n != 0 {
				t.Errorf("SampleSize = %d, want 0", n)
			}
		})
	}
	if n := SampleSize(-0.03, 0.25, 0.05, 0.8); n != 2181 {
		t.Errorf("negative delta: %d, want 2181", n)
	}
	if n := SampleSize(0.5, 0, 0.05, 0.8); n != 2 {
		t.Errorf("zero variance: %d, want the floor of 2", n)
	}
	if n := SampleSize(1e-200, 1, 0.05, 0.8); n != math.MaxInt {
		t.Errorf("huge: %d", n)
	}
	if !math.IsNaN(MinimumDetectableEffect(0, 0.25, 0.05, 0.8)) {
		t.Error("MDE with n=0 is not NaN")
	}
	near(t, "MDE n=2181", MinimumDetectableEffect(2181, 0.25, 0.05, 0.8), math.Sqrt(7.848879734349303*0.25/2181), 1e-9)
}

func TestDesignEffect(t *testing.T) {
	near(t, "deff", DesignEffect(10, 0.2), 2.8, 1e-15)
	near(t, "deff singletons", DesignEffect(1, 0.9), 1, 0)
	if !math.IsNaN(DesignEffect(0.5, 0.1)) {
		t.Error("mean cluster size below 1 accepted")
	}
}

func TestBinomialCDF(t *testing.T) {
	// Exact sums for small n.
	for _, n := range []int{1, 5, 12, 40} {
		for _, p := range []float64{0.01, 0.3, 0.5, 0.97} {
			cum := 0.0
			for k := 0; k <= n; k++ {
				cum += combinations(n, k) * math.Pow(p, float64(k)) * math.Pow(1-p, float64(n-k))
				got := BinomialCDF(k, n, p)
				if math.Abs(got-cum) > 1e-13 {
					t.Errorf("BinomialCDF(%d, %d, %v) = %.17g, want %.17g", k, n, p, got, cum)
				}
			}
		}
	}
	for _, tt := range []struct {
		k, n int
		p    float64
		want float64
	}{
		{-1, 5, 0.5, 0}, {5, 5, 0.5, 1}, {2, 5, 0, 1}, {2, 5, 1, 0},
		// Large n: P(X ≤ 450) for Binomial(1000, ½), summed exactly at 30
		// digits.
		{450, 1000, 0.5, 0.000865268042488159},
	} {
		got := BinomialCDF(tt.k, tt.n, tt.p)
		if math.Abs(got-tt.want) > 1e-12*math.Max(tt.want, 1e-300) && got != tt.want {
			t.Errorf("BinomialCDF(%d, %d, %v) = %.12g, want %.12g", tt.k, tt.n, tt.p, got, tt.want)
		}
	}
	if !math.IsNaN(BinomialCDF(1, 5, 1.5)) || !math.IsNaN(BinomialCDF(1, -1, 0.5)) {
		t.Error("invalid arguments not NaN")
	}
}

func TestMcNemarEdges(t *testing.T) {
	if p := McNemarExact(0, 0); p != 1 {
		t.Errorf("McNemarExact(0, 0) = %v", p)
	}
	if p := McNemarExact(5, 5); p != 1 {
		t.Errorf("McNemarExact(5, 5) = %v, want 1 (capped)", p)
	}
	if !math.IsNaN(McNemarExact(-1, 2)) {
		t.Error("negative count accepted")
	}
	if s, p := McNemarChiSquare(4, 4); s != 0 || p != 1 {
		t.Errorf("McNemarChiSquare(4, 4) = %v, %v", s, p)
	}
}
