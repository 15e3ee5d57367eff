package compare

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A case regresses when its pass rate falls by more than the tolerance: a
// fall of exactly the tolerance (8/10 → 7/10 at 0.1, 4/5 → 3/5 at 0.2) is
// not one, whatever the rounding of 0.8 − 0.1 in binary.
func TestToleranceBoundary(t *testing.T) {
	runs := func(id string, n, passed int) []rv {
		var out []rv
		for i := range n {
			if i < passed {
				out = append(out, rvPass(id, 1))
			} else {
				out = append(out, rvFail(id, 1))
			}
		}
		return out
	}
	tests := []struct {
		n, a, b   int
		tolerance float64
		status    string
	}{
		{10, 8, 7, 0.1, CaseUnchanged},
		{10, 8, 6, 0.1, CaseRegressed},
		{10, 7, 8, 0.1, CaseUnchanged},
		{10, 4, 1, 0.3, CaseUnchanged},
		{5, 4, 3, 0.2, CaseUnchanged},
		{5, 4, 1, 0.6, CaseUnchanged},
		{5, 4, 1, 0.59, CaseRegressed},
		{6, 5, 2, 0.5, CaseUnchanged},
		{10, 8, 7, 0, CaseRegressed},
	}
	for _, tt := range tests {
		c := rvCompare(t, rvSuite(runs("x", tt.n, tt.a)...), rvSuite(runs("x", tt.n, tt.b)...),
			Options{PassRateTolerance: tt.tolerance, Strict: true})
		assert.Equal(t, tt.status, caseOf(t, c, "x").Status, "%d/%d → %d/%d at %v", tt.a, tt.n, tt.b, tt.n, tt.tolerance)
		flipped := 2*tt.a > tt.n && 2*tt.b <= tt.n
		assert.Equal(t, tt.status == CaseRegressed || flipped, c.Gate.Failed, "%d/%d → %d/%d at %v", tt.a, tt.n, tt.b, tt.n, tt.tolerance)
	}
}
