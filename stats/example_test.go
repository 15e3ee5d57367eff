package stats_test

import (
	"fmt"

	"github.com/luxeval/lux/stats"
)

// A baseline and a candidate agent ran the same eight cases three times
// each. Cases come from four repositories, so cases of one repository are
// not independent.
func Example() {
	baseline := [][]float64{{1, 1, 0}, {0, 0, 0}, {1, 1, 1}, {0, 1, 0}, {1, 0, 1}, {0, 0, 0}, {1, 1, 1}, {0, 0, 1}}
	candidate := [][]float64{{1, 1, 1}, {0, 1, 0}, {1, 1, 1}, {1, 1, 0}, {1, 1, 1}, {0, 0, 1}, {1, 1, 1}, {1, 0, 1}}
	repos := []string{"api", "api", "cli", "cli", "web", "web", "db", "db"}

	// Reduce the repeated runs to one mean per case.
	before, err := stats.ReduceRepeats(baseline)
	if err != nil {
		panic(err)
	}
	after, err := stats.ReduceRepeats(candidate)
	if err != nil {
		panic(err)
	}

	// Paired difference, clustered by repository, t with C-1 = 3 df.
	iv, err := stats.Paired(before.Means, after.Means, repos, stats.Config{Method: stats.StudentT})
	if err != nil {
		panic(err)
	}
	fmt.Printf("candidate - baseline: %+.3f, 95%% CI [%+.3f, %+.3f], %d clusters\n", iv.Estimate, iv.Lower, iv.Upper, iv.Units)
	for _, w := range iv.Warnings {
		fmt.Println(w.Code)
	}
	// Output:
	// candidate - baseline: +0.250, 95% CI [+0.097, +0.403], 4 clusters
	// few-clusters
}

func ExampleMean() {
	passed := []float64{1, 1, 0, 1, 1, 1, 0, 1, 1, 1}
	for _, m := range []stats.Method{stats.Wilson, stats.StudentT, stats.Hoeffding} {
		iv, err := stats.Mean(passed, nil, stats.Config{Method: m})
		if err != nil {
			panic(err)
		}
		fmt.Println(iv)
	}
	// Output:
	// 0.8 [0.4902, 0.9433] (wilson, 95%, n=10, units=10)
	// 0.8 [0.4984, 1.102] (t, 95%, n=10, units=10)
	// 0.8 [0.3705, 1] (hoeffding, 95%, n=10, units=10)
}

func ExampleMean_bootstrap() {
	scores := []float64{0.9, 0.4, 0.75, 1, 0.6, 0.8, 0.3, 0.95, 0.7, 0.85,
		0.5, 0.65, 0.9, 1, 0.2, 0.75, 0.8, 0.55, 0.9, 0.7,
		0.6, 0.85, 0.95, 0.4, 0.7, 0.8, 0.65, 0.9, 0.75, 0.5}
	cfg := stats.Config{Method: stats.PercentileBootstrap, Resamples: 10_000, Seed: 7}
	iv, err := stats.Mean(scores, nil, cfg)
	if err != nil {
		panic(err)
	}
	// The same seed gives the same interval, on every platform.
	again, _ := stats.Mean(scores, nil, cfg)
	fmt.Printf("%.4f [%.4f, %.4f] same=%v\n", iv.Estimate, iv.Lower, iv.Upper, iv.Lower == again.Lower && iv.Upper == again.Upper)
	// Output:
	// 0.7100 [0.6333, 0.7800] same=true
}

func ExampleReduceRepeats() {
	r, err := stats.ReduceRepeats([][]float64{{1, 1, 1}, {1, 0, 1}, {0, 0, 1}, {0, 0, 0}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("case means %.3f\n", r.Means)
	fmt.Printf("SE %.4f, run noise %.4f, case spread %.4f\n", r.StdErr, r.WithinVar, r.BetweenVar)
	fmt.Printf("SE with 10 runs per case: %.4f; with 8 cases of 3 runs: %.4f\n",
		r.ProjectedStdErr(r.Cases, 10), r.ProjectedStdErr(2*r.Cases, 3))
	// Output:
	// case means [1.000 0.667 0.333 0.000]
	// SE 0.2152, run noise 0.1667, case spread 0.1296
	// SE with 10 runs per case: 0.1912; with 8 cases of 3 runs: 0.1521
}

func ExampleSampleSize() {
	// Cases needed to detect a 3-point gain in pass rate at α = 0.05 with
	// 80 % power, when the paired differences have variance 0.125.
	n := stats.SampleSize(0.03, 0.125, 0.05, 0.8)
	fmt.Println(n)
	fmt.Printf("%.4f\n", stats.MinimumDetectableEffect(n, 0.125, 0.05, 0.8))
	// Output:
	// 1091
	// 0.0300
}

func ExampleMcNemarExact() {
	// Of the cases where the two agents disagree, the candidate alone
	// passed 10 and the baseline alone passed 2.
	fmt.Printf("%.4f\n", stats.McNemarExact(10, 2))
	// Output: 0.0386
}

func ExampleHolmBonferroni() {
	p := []float64{0.01, 0.04, 0.03, 0.005}
	fmt.Printf("%.3g\n", stats.HolmBonferroni(p))
	fmt.Printf("%.3g\n", stats.BenjaminiHochberg(p))
	// Output:
	// [0.03 0.06 0.06 0.02]
	// [0.02 0.04 0.04 0.02]
}

func ExampleFisherExactLess() {
	// A case passed 3 of 3 runs before a change and 0 of 3 after it.
	fmt.Printf("%.3f\n", stats.FisherExactLess(3, 3, 0, 3))
	// 2 of 2 against 0 of 2 is not significant on its own.
	fmt.Printf("%.3f\n", stats.FisherExactLess(2, 2, 0, 2))
	// Output:
	// 0.050
	// 0.167
}
