package stats

import (
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestMultipleComparisons(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name     string
		p        []float64
		holm, bh []float64
	}{
		{name: "nil", p: nil, holm: nil, bh: nil},
		{name: "empty", p: []float64{}, holm: []float64{}, bh: []float64{}},
		{name: "single", p: []float64{0.03}, holm: []float64{0.03}, bh: []float64{0.03}},
		{
			// Worked by hand from the step-down and step-up formulas.
			name: "four, unsorted",
			p:    []float64{0.01, 0.04, 0.03, 0.005},
			holm: []float64{0.03, 0.06, 0.06, 0.02},
			bh:   []float64{0.02, 0.04, 0.04, 0.02},
		},
		{
			name: "monotone step-up and cap at 1",
			p:    []float64{0.5, 0.9, 0.02, 0.6},
			holm: []float64{1, 1, 0.08, 1},
			bh:   []float64{0.8, 0.9, 0.08, 0.8},
		},
		{
			name: "ties keep input order",
			p:    []float64{0.02, 0.02, 0.02},
			holm: []float64{0.06, 0.06, 0.06},
			bh:   []float64{0.02, 0.02, 0.02},
		},
		{
			name: "invalid entries count as p=1",
			p:    []float64{0.01, nan, 0.02, 1.5},
			holm: []float64{0.04, nan, 0.06, nan},
			bh:   []float64{0.04, nan, 0.04, nan},
		},
	}
	opts := cmp.Options{cmpopts.EquateApprox(0, 1e-12), cmpopts.EquateNaNs()}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.p)
			if diff := cmp.Diff(tt.holm, HolmBonferroni(tt.p), opts); diff != "" {
				t.Errorf("HolmBonferroni (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.bh, BenjaminiHochberg(tt.p), opts); diff != "" {
				t.Errorf("BenjaminiHochberg (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(in, tt.p, opts); diff != "" {
				t.Errorf("input modified:\n%s", diff)
			}
		})
	}
}
