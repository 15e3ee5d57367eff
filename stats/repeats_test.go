package stats

import (
	"errors"
	"math"
	"testing"
)

func TestReduceRepeatsErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		runs [][]float64
		want error
	}{
		{"no cases", nil, ErrTooFewUnits},
		{"one case", [][]float64{{1, 0}}, ErrTooFewUnits},
		{"a case with one run", [][]float64{{1, 0}, {1}}, ErrTooFewUnits},
		{"NaN", [][]float64{{1, 0}, {1, math.NaN()}}, ErrNonFinite},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReduceRepeats(tt.runs)
			if !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
		})
	}
}

func TestReduceRepeats(t *testing.T) {
	t.Run("unequal runs per case", func(t *testing.T) {
		r, err := ReduceRepeats([][]float64{{1, 1}, {1, 0, 1, 0}, {0, 0, 1}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Cases != 3 || r.Runs != 9 {
			t.Errorf("cases %d runs %d", r.Cases, r.Runs)
		}
		// σ̂² = 0, 1/3, 1/3; Σσ̂²/K = 0 + 1/12 + 1/9.
		near(t, "within", r.WithinVar, 2.0/9, 1e-15)
		means := []float64{1, 0.5, 1.0 / 3}
		want := sampleVar(means) - (1.0/12+1.0/9)/3
		near(t, "between", r.BetweenVar, want, 1e-15)
		near(t, "run share", r.RunShare, (1.0/12+1.0/9)/3/sampleVar(means), 1e-15)
	})

	t.Run("pure run noise clamps between-case variance", func(t *testing.T) {
		// Every case has the same mean: the case means do not vary, while
		// the runs inside each case do.
		runs := [][]float64{{0, 1, 1, 0}}
		for range 19 {
			runs = append(runs, []float64{0, 1, 0, 1})
		}
		r, err := ReduceRepeats(runs)
		if err != nil {
			t.Fatal(err)
		}
		if r.BetweenVar != 0 || len(r.Warnings) != 1 || r.Warnings[0].Code != WarnDegenerate {
			t.Errorf("between %v, warnings %v", r.BetweenVar, r.Warnings)
		}
		if r.StdErr != 0 || r.RunShare != 0 {
			t.Errorf("SE %v, run share %v for identical case means", r.StdErr, r.RunShare)
		}
	})

	t.Run("projection", func(t *testing.T) {
		r := Repeats{BetweenVar: 0.1, WithinVar: 0.2}
		near(t, "more runs", r.ProjectedStdErr(100, 4), math.Sqrt((0.1+0.05)/100), 1e-15)
		if !math.IsNaN(r.ProjectedStdErr(0, 1)) || !math.IsNaN(r.ProjectedStdErr(1, 0)) {
			t.Error("invalid projection not NaN")
		}
	})
}
