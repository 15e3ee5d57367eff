package compare

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The strict gate fails on any case whose verdict flipped from pass to
// fail, even when its pass rate fell by less than the tolerance; and on
// any case that regressed beyond the tolerance, flipped or not.
func TestStrictGateOnFlips(t *testing.T) {
	var a, b []rv
	for i := range 10 {
		id := fmt.Sprintf("f%d", i)
		for r := range 3 {
			a = append(a, rvPass(id, 1))
			x := rvPass(id, 1)
			// f1: 3/3 → 1/3, flips and falls by 2/3; f2: 3/3 → 2/3 falls by 1/3, no flip.
			if i == 1 && r > 0 || i == 2 && r == 0 {
				x = rvFail(id, 1)
			}
			b = append(b, x)
		}
	}
	// f3: 2/3 → 1/3, flips but falls by only 1/3.
	a[3*3] = rvFail("f3", 1)
	b[3*3], b[3*3+1] = rvFail("f3", 1), rvFail("f3", 1)

	tests := []struct {
		tolerance float64
		reasons   []string
	}{
		{0, []string{"strict: 3 cases regressed: f1, f2, f3"}},
		{0.5, []string{"strict: 1 case regressed: f1", "strict: 1 case flipped from pass to fail within the tolerance: f3"}},
		{0.7, []string{"strict: 2 cases flipped from pass to fail within the tolerance: f1, f3"}},
	}
	for _, tt := range tests {
		c := rvCompare(t, rvSuite(a...), rvSuite(b...), Options{Strict: true, PassRateTolerance: tt.tolerance})
		assert.Equal(t, 2, c.Flips.PassToFail)
		assert.True(t, c.Gate.Failed, "tolerance %v", tt.tolerance)
		assert.Equal(t, tt.reasons, c.Gate.Reasons, "tolerance %v", tt.tolerance)
		c = rvCompare(t, rvSuite(a...), rvSuite(b...), Options{PassRateTolerance: tt.tolerance})
		assert.False(t, c.Gate.Failed, "not strict, tolerance %v", tt.tolerance)
	}
}
