package stats

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// combinations computes C(n, k) exactly for small n.
func combinations(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

func TestPassKAgainstBinomials(t *testing.T) {
	for n := 1; n <= 20; n++ {
		for c := 0; c <= n; c++ {
			for k := 1; k <= n; k++ {
				at, err := PassAtK(n, c, k)
				if err != nil {
					t.Fatal(err)
				}
				hat, err := PassHatK(n, c, k)
				if err != nil {
					t.Fatal(err)
				}
				wantAt := 1 - combinations(n-c, k)/combinations(n, k)
				wantHat := combinations(c, k) / combinations(n, k)
				if math.Abs(at-wantAt) > 1e-12 || math.Abs(hat-wantHat) > 1e-12 {
					t.Fatalf("n=%d c=%d k=%d: pass@k %v (want %v), pass^k %v (want %v)", n, c, k, at, wantAt, hat, wantHat)
				}
			}
		}
	}
	// Large n: no overflow.
	at, _ := PassAtK(100000, 500, 100)
	hat, _ := PassHatK(100000, 99000, 100)
	if !(at > 0.39 && at < 0.40) || !(hat > 0.36 && hat < 0.37) {
		t.Errorf("large n: pass@100 %v, pass^100 %v", at, hat)
	}
}

func TestPassKErrors(t *testing.T) {
	for _, tt := range []struct{ n, c, k int }{
		{0, 0, 1}, {5, 6, 1}, {5, -1, 1}, {5, 2, 0}, {5, 2, 6},
	} {
		t.Run(fmt.Sprintf("n=%d,c=%d,k=%d", tt.n, tt.c, tt.k), func(t *testing.T) {
			if _, err := PassAtK(tt.n, tt.c, tt.k); !errors.Is(err, ErrArgument) {
				t.Errorf("PassAtK error %v", err)
			}
			if _, err := PassHatK(tt.n, tt.c, tt.k); !errors.Is(err, ErrArgument) {
				t.Errorf("PassHatK error %v", err)
			}
		})
	}
}
