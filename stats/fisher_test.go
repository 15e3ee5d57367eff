package stats

import (
	"math"
	"testing"
)

// Values by hand from the hypergeometric distribution, and the symmetry
// of the two directions.
func TestFisherExactLess(t *testing.T) {
	tests := []struct {
		k1, n1, k2, n2 int
		want           float64
	}{
		{3, 3, 0, 3, 1.0 / 20},
		{2, 2, 0, 2, 1.0 / 6},
		{1, 1, 0, 1, 1.0 / 2},
		{3, 3, 1, 3, 3.0 / 15},   // 4 successes of 6: only x = 1, C(3,1)·C(3,3)/C(6,4)
		{5, 5, 2, 5, 21.0 / 252}, // 7 successes of 10: only x = 2 is at or below 2
		{0, 3, 3, 3, 1},          // it rose: nothing lower
		{2, 4, 2, 4, 53.0 / 70},  // equal: P(X ≤ 2) of hypergeometric(8, 4, 4)
		{10, 10, 0, 10, 1 / 184756.0},
	}
	for _, tt := range tests {
		got := FisherExactLess(tt.k1, tt.n1, tt.k2, tt.n2)
		if math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("FisherExactLess(%d, %d, %d, %d) = %v, want %v", tt.k1, tt.n1, tt.k2, tt.n2, got, tt.want)
		}
	}
	for _, bad := range [][4]int{{-1, 3, 0, 3}, {4, 3, 0, 3}, {0, 0, 0, 0}, {0, 3, 4, 3}} {
		if got := FisherExactLess(bad[0], bad[1], bad[2], bad[3]); !math.IsNaN(got) {
			t.Errorf("FisherExactLess%v = %v, want NaN", bad, got)
		}
	}
}
