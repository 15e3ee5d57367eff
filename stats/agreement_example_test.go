package stats_test

import (
	"fmt"

	"github.com/luxeval/lux/stats"
)

// Two raters' verdicts on six units, and Krippendorff's alpha over the
// same pairs. By hand: they agree on 4 of 6 and each says pass 3 times, so
// p_e = 1/2 and κ = (2/3 − 1/2)/(1/2) = 1/3; alpha pools the 12 values (6
// pass, 6 fail): α = 1 − 11·4/(144 − 36 − 36) = 7/18.
func ExampleCohenKappa() {
	a := []string{"pass", "pass", "fail", "fail", "pass", "fail"}
	b := []string{"pass", "fail", "fail", "fail", "pass", "pass"}
	k, _ := stats.CohenKappa(a, b, stats.Config{Seed: 1})
	fmt.Printf("kappa %.3f (%s over %d units)\n", k.Estimate, k.Method, k.Units)
	units := make([][]float64, len(a))
	for i := range a {
		units[i] = []float64{code(a[i]), code(b[i])}
	}
	al, _ := stats.KrippendorffAlpha(units, stats.Nominal, stats.Config{Seed: 1})
	fmt.Printf("alpha %.3f\n", al.Estimate)
	// Output:
	// kappa 0.333 (percentile-bootstrap over 6 units)
	// alpha 0.389
}

func code(s string) float64 {
	if s == "pass" {
		return 1
	}
	return 0
}
