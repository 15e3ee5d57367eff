package stats_test

import (
	"encoding/json"
	"fmt"

	"github.com/luxeval/lux/stats"
)

// A candidate is checked against the baseline pair by pair, and the test
// is looked at after every pair. It stops as soon as the evidence is
// enough, with type I error at most 5 % however often it was looked at.
// (By hand: 10 wins and 1 loss under the uniform prior on p > ½ give
// E = 2¹¹ · 2∫_{½}^{1} p¹⁰(1−p) dp = 30.9.)
func ExampleSignTest() {
	test, err := stats.NewSignTest(stats.SignTestOptions{Alternative: stats.Greater, MaxPairs: 200})
	if err != nil {
		panic(err)
	}
	// Did the baseline pass, did the candidate pass, case by case.
	pairs := [][2]bool{{true, true}, {false, true}, {false, true}, {true, false}, {false, true},
		{false, false}, {false, true}, {false, true}, {false, true}, {false, true}, {false, true},
		{true, true}, {false, true}, {false, true}, {false, true}}
	var r stats.SignTestResult
	for _, p := range pairs {
		if r = test.Observe(p[0], p[1]); r.Stop != stats.Continuing {
			break
		}
	}
	fmt.Printf("%s after %d pairs (%d won, %d lost): E = %.1f, anytime p = %.3f\n",
		r.Stop, r.Pairs, r.Wins, r.Losses, r.EValue, r.PValue)

	// The state is plain JSON: save it, and resume later.
	saved, _ := json.Marshal(test.State())
	var st stats.SignTestState
	_ = json.Unmarshal(saved, &st)
	resumed, _ := stats.ResumeSignTest(st)
	fmt.Println(resumed.Result().Stop)
	// Output:
	// crossed after 14 pairs (10 won, 1 lost): E = 30.9, anytime p = 0.032
	// crossed
}

// Three candidates against one baseline: e-BH keeps the false discovery
// rate at 5 % whatever the dependence between their e-values.
func ExampleEBenjaminiHochberg() {
	e := []float64{48, 31, 2.5}
	fmt.Println(stats.EBenjaminiHochberg(e, 0.05), stats.EBonferroni(e, 0.05))
	// Output:
	// [true true false] [false false false]
}

// Per-round mean differences (candidate − baseline over a fixed case
// set) bound the effect with a confidence sequence.
func ExampleBettingSequence() {
	cs, err := stats.NewBettingSequence(stats.CSOptions{Min: -1, Max: 1})
	if err != nil {
		panic(err)
	}
	var r stats.ConfidenceSequence
	rounds := []float64{0.3, 0.25, 0.1, 0.35, 0.2, 0.3, 0.15, 0.25, 0.2, 0.3}
	for i := range 6 * len(rounds) {
		if r, err = cs.Observe(rounds[i%len(rounds)]); err != nil {
			panic(err)
		}
		if i == 9 {
			fmt.Printf("%s after %d rounds: mean %.3f, 95%% sequence [%.3f, %.3f]\n", r.Decide(0.05), r.N, r.Estimate, r.Lower, r.Upper)
		}
	}
	fmt.Printf("%s after %d rounds: mean %.3f, 95%% sequence [%.3f, %.3f]\n", r.Decide(0.05), r.N, r.Estimate, r.Lower, r.Upper)
	// Output:
	// continuing after 10 rounds: mean 0.240, 95% sequence [-0.346, 0.600]
	// crossed after 60 rounds: mean 0.240, 95% sequence [0.098, 0.328]
}
