package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// refEBH is e-BH in the form of Wang & Ramdas (2022), Definition 2 read
// as a search: k* is the largest k for which at least k e-values reach
// K/(αk); reject every e-value that reaches K/(αk*).
func refEBH(e []float64, alpha float64) []bool {
	k := len(e)
	kStar := 0
	for c := 1; c <= k; c++ {
		n := 0
		for _, v := range e {
			if v >= float64(k)/(alpha*float64(c)) {
				n++
			}
		}
		if n >= c {
			kStar = c
		}
	}
	out := make([]bool, k)
	if kStar == 0 {
		return out
	}
	for i, v := range e {
		out[i] = v >= float64(k)/(alpha*float64(kStar))
	}
	return out
}

func TestEBenjaminiHochberg(t *testing.T) {
	for _, tc := range []struct {
		e    []float64
		want []bool
	}{
		// K = 4, α = 0.05: 1·100/4 = 25 ≥ 20; 2·30/4 = 15 < 20.
		{[]float64{100, 30, 5, 1}, []bool{true, false, false, false}},
		// 3·41/4 = 30.75 ≥ 20, while Bonferroni's 4/0.05 = 80 rejects none.
		{[]float64{50, 45, 41, 2}, []bool{true, true, true, false}},
		{[]float64{19, 19}, []bool{false, false}},
		{[]float64{math.NaN(), 1000, -3}, []bool{false, true, false}},
		{[]float64{}, []bool{}},
	} {
		if diff := cmp.Diff(tc.want, EBenjaminiHochberg(tc.e, 0.05)); diff != "" {
			t.Errorf("e-BH %v (-want +got):\n%s", tc.e, diff)
		}
	}
	if EBenjaminiHochberg(nil, 0.05) != nil {
		t.Error("nil input gave a non-nil result")
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 2000 {
		e := make([]float64, 1+rng.IntN(8))
		for i := range e {
			e[i] = math.Exp(rng.NormFloat64() * 3)
			if rng.IntN(5) == 0 && i > 0 {
				e[i] = e[i-1] // ties
			}
		}
		if diff := cmp.Diff(refEBH(e, 0.1), EBenjaminiHochberg(e, 0.1)); diff != "" {
			t.Fatalf("e-BH %v (-reference +got):\n%s", e, diff)
		}
	}
}

func TestEBonferroni(t *testing.T) {
	got := EBonferroni([]float64{80, 79.9, math.NaN(), math.Inf(1)}, 0.05)
	if diff := cmp.Diff([]bool{true, false, false, true}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := EBonferroni([]float64{1e9}, 0); got[0] {
		t.Error("alpha 0 rejected")
	}
}
