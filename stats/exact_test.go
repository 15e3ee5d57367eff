package stats

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// tailAtLeast is P(X ≥ k) for X ~ Binomial(n, p), summed term by term from
// the pmf with math.Pow: a computation independent of BinomialCDF's
// recurrence, for the reference values below.
func tailAtLeast(k, n int, p float64) float64 {
	sum := 0.0
	for i := k; i <= n; i++ {
		lc := logChooseDirect(n, i)
		sum += math.Exp(lc) * math.Pow(p, float64(i)) * math.Pow(1-p, float64(n-i))
	}
	return sum
}

// logChooseDirect is ln C(n, k) as a sum of logarithms (not Lgamma).
func logChooseDirect(n, k int) float64 {
	s := 0.0
	for i := 1; i <= k; i++ {
		s += math.Log(float64(n-k+i)) - math.Log(float64(i))
	}
	return s
}

// bisect finds the p in [0, 1] where f crosses target, f increasing.
func bisect(f func(float64) float64, target float64) float64 {
	lo, hi := 0.0, 1.0
	for range 200 {
		mid := (lo + hi) / 2
		if f(mid) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// The Clopper–Pearson bounds are where the binomial tails equal α/2
// (Clopper & Pearson 1934): checked against a bisection over the tails
// summed from the pmf, and against R's binom.test for a few counts.
func TestClopperPearsonInterval(t *testing.T) {
	published := []struct {
		k, n         int
		lower, upper float64 // binom.test(k, n)$conf.int in R 4.x
	}{
		{6, 6, 0.5407419, 1},
		{0, 6, 0, 0.4592581},
		{3, 10, 0.06673951, 0.65245285},
		{7, 8, 0.4734903, 0.9968403},
	}
	for _, tt := range published {
		iv, err := ClopperPearsonInterval(tt.k, tt.n, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(iv.Lower-tt.lower) > 5e-7 || math.Abs(iv.Upper-tt.upper) > 5e-7 {
			t.Errorf("%d of %d: [%.8f, %.8f], R gives [%.8f, %.8f]", tt.k, tt.n, iv.Lower, iv.Upper, tt.lower, tt.upper)
		}
		if iv.Method != ClopperPearson || iv.Units != tt.n || iv.Estimate != float64(tt.k)/float64(tt.n) {
			t.Errorf("%d of %d: %v", tt.k, tt.n, iv)
		}
	}
	for _, level := range []float64{0.9, 0.95, 0.99} {
		alpha := 1 - level
		for _, n := range []int{1, 2, 5, 13, 40} {
			for k := 0; k <= n; k++ {
				iv, err := ClopperPearsonInterval(k, n, level)
				if err != nil {
					t.Fatal(err)
				}
				lower, upper := 0.0, 1.0
				if k > 0 {
					lower = bisect(func(p float64) float64 { return tailAtLeast(k, n, p) }, alpha/2)
				}
				if k < n {
					// P(X ≤ k) = 1 − P(X ≥ k+1) falls as p grows.
					upper = bisect(func(p float64) float64 { return tailAtLeast(k+1, n, p) }, 1-alpha/2)
				}
				if math.Abs(iv.Lower-lower) > 1e-9 || math.Abs(iv.Upper-upper) > 1e-9 {
					t.Errorf("level %v, %d of %d: [%.12f, %.12f], the tails give [%.12f, %.12f]", level, k, n, iv.Lower, iv.Upper, lower, upper)
				}
			}
		}
	}
	for _, bad := range [][2]int{{-1, 3}, {4, 3}, {0, 0}} {
		if _, err := ClopperPearsonInterval(bad[0], bad[1], 0.95); !errors.Is(err, ErrArgument) {
			t.Errorf("%v: %v, want ErrArgument", bad, err)
		}
	}
}

// A sample without spread of values bounded in [lo, hi] gets the exact
// bound: at the ends of the range it is Clopper–Pearson's n of n (or 0 of
// n), (α/2)^(1/n) from the end.
func TestConstantInterval(t *testing.T) {
	a6 := math.Pow(0.025, 1.0/6) // 0.5407419 (binom.test(6, 6))
	tests := []struct {
		v, lo, hi    float64
		n            int
		lower, upper float64
	}{
		{1, 0, 1, 6, a6, 1},
		{0, 0, 1, 6, 0, 1 - a6},
		{1, -1, 1, 6, 2*a6 - 1, 1},    // every pair improved: 0→1 on six cases
		{0, -1, 1, 6, a6 - 1, 1 - a6}, // no pair changed
		{0.5, 0, 1, 6, 0.5 * a6, 1 - 0.5*a6},
	}
	for _, tt := range tests {
		iv, err := ConstantInterval(tt.v, tt.n, tt.lo, tt.hi, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(iv.Lower-tt.lower) > 1e-12 || math.Abs(iv.Upper-tt.upper) > 1e-12 || iv.Estimate != tt.v || iv.Method != ClopperPearson {
			t.Errorf("%v in [%v, %v] × %d: %v, want [%v, %v]", tt.v, tt.lo, tt.hi, tt.n, iv, tt.lower, tt.upper)
		}
	}
	// At the ends it is the Clopper–Pearson interval itself.
	cp, _ := ClopperPearsonInterval(6, 6, 0.95)
	iv, _ := ConstantInterval(1, 6, 0, 1, 0.95)
	if math.Abs(cp.Lower-iv.Lower) > 1e-9 {
		t.Errorf("6 of 6: %v, clopper-pearson %v", iv, cp)
	}
	if _, err := ConstantInterval(2, 6, 0, 1, 0.95); !errors.Is(err, ErrDomain) {
		t.Errorf("a value outside the range: %v", err)
	}
	if _, err := ConstantInterval(1, 0, 0, 1, 0.95); !errors.Is(err, ErrTooFewUnits) {
		t.Errorf("no unit: %v", err)
	}
}

// Six cases that all went from fail to pass: a t interval has zero width
// and claims certainty; with Bounded the interval is the exact bound, and
// the warning says which method it fell back to.
func TestBoundedSampleWithoutSpreadFallsBack(t *testing.T) {
	before, after := repeat(0, 6), repeat(1, 6)
	plain, err := Paired(before, after, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Lower != 1 || plain.Upper != 1 {
		t.Fatalf("without Bounded the t interval is degenerate: %v", plain)
	}
	for _, m := range []Method{StudentT, Normal, PercentileBootstrap} {
		iv, err := Paired(before, after, nil, Config{Method: m, Bounded: true})
		if err != nil {
			t.Fatal(err)
		}
		want := 2*math.Pow(0.025, 1.0/6) - 1
		if iv.Method != ClopperPearson || math.Abs(iv.Lower-want) > 1e-12 || iv.Upper != 1 || iv.Estimate != 1 || iv.Units != 6 {
			t.Errorf("%s: %v, want clopper-pearson [%v, 1]", m, iv, want)
		}
		if len(iv.Warnings) == 0 || iv.Warnings[len(iv.Warnings)-1].Code != WarnDegenerate ||
			!strings.Contains(iv.Warnings[len(iv.Warnings)-1].Detail, "clopper-pearson") {
			t.Errorf("%s: the fallback is not said: %v", m, iv.Warnings)
		}
	}
	// Clustered: the clusters are the units.
	iv, err := Mean(repeat(1, 6), []string{"a", "a", "b", "b", "c", "c"}, Config{Bounded: true})
	if err != nil {
		t.Fatal(err)
	}
	if iv.Method != ClopperPearson || math.Abs(iv.Lower-math.Pow(0.025, 1.0/3)) > 1e-12 || iv.Units != 3 {
		t.Errorf("clustered: %v", iv)
	}
	// A sample with spread keeps its method.
	iv, err = Mean([]float64{1, 0, 1, 1}, nil, Config{Bounded: true})
	if err != nil || iv.Method != StudentT {
		t.Errorf("with spread: %v, %v", iv, err)
	}
	// Bounded values must be in [0, 1].
	if _, err := Mean([]float64{2, 2, 2}, nil, Config{Bounded: true}); !errors.Is(err, ErrDomain) {
		t.Errorf("out of range: %v", err)
	}
	if _, err := Paired([]float64{0, 0}, []float64{3, 3}, nil, Config{Bounded: true}); !errors.Is(err, ErrDomain) {
		t.Errorf("paired out of range: %v", err)
	}
}
