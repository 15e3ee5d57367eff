package compare_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/compare"
)

// integrate is Simpson's rule on [a, b] with n (even) intervals: an
// independent transcription of the e-values' defining integrals.
func integrate(f func(float64) float64, a, b float64, n int) float64 {
	h := (b - a) / float64(n)
	sum := f(a) + f(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(a+float64(i)*h)
	}
	return sum * h / 3
}

func TestConfirmEValuesMatchTheirIntegrals(t *testing.T) {
	for _, tc := range []struct {
		hits, misses int
		b            float64
	}{{0, 0, 0.3}, {1, 0, 0.5}, {5, 0, 0.52}, {8, 0, 0.52}, {0, 7, 0.52}, {3, 4, 0.2}, {10, 2, 0.9}, {0, 20, 0.05}} {
		lik := func(q float64) float64 {
			return math.Pow(q, float64(tc.hits)) * math.Pow(1-q, float64(tc.misses))
		}
		null := lik(tc.b)
		wantChange := integrate(lik, tc.b, 1, 20000) / (1 - tc.b) / null
		wantHeld := integrate(lik, 0, tc.b, 20000) / tc.b / null
		change, held := compare.ConfirmEValues(tc.hits, tc.misses, tc.b)
		require.InEpsilon(t, wantChange, change, 1e-8, "%+v", tc)
		require.InEpsilon(t, wantHeld, held, 1e-8, "%+v", tc)
	}
}

// Five baseline passes: the bound on the fail probability is
// 1 − (α/2)^(1/5) ≈ 0.52 for one case at α = 0.05, and eight failures in
// a row confirm the regression (the mixture first reaches 40 there).
func TestConfirmTestDecides(t *testing.T) {
	ct, err := compare.NewConfirmTest(compare.Regression, 0, 5, 1, 0.05, 20)
	require.NoError(t, err)
	require.InDelta(t, 1-math.Pow(0.025, 0.2), ct.Bound, 1e-6)
	require.Equal(t, 40.0, ct.Threshold)
	n := 0
	for ct.Decision() == compare.ConfirmContinue {
		ct.Observe(false)
		n++
	}
	require.Equal(t, compare.ConfirmRegressed, ct.Decision())
	require.Equal(t, 8, n)

	ct, _ = compare.NewConfirmTest(compare.Regression, 0, 5, 1, 0.05, 20)
	for ct.Decision() == compare.ConfirmContinue {
		ct.Observe(true)
	}
	require.Equal(t, compare.ConfirmHeld, ct.Decision())
	require.Less(t, ct.Runs, 8)

	ct, _ = compare.NewConfirmTest(compare.Regression, 0, 5, 1, 0.05, 3)
	for ct.Decision() == compare.ConfirmContinue {
		ct.Observe(false)
	}
	require.Equal(t, compare.ConfirmUndecided, ct.Decision())
	require.Equal(t, 3, ct.Runs)

	// One baseline run cannot bound its pass rate away from 0 enough for
	// a regression ever to be confirmed within a small cap.
	ct, _ = compare.NewConfirmTest(compare.Regression, 0, 1, 1, 0.05, 20)
	for ct.Decision() == compare.ConfirmContinue {
		ct.Observe(false)
	}
	require.Equal(t, compare.ConfirmUndecided, ct.Decision())

	ct, _ = compare.NewConfirmTest(compare.Improvement, 0, 5, 1, 0.05, 20)
	for ct.Decision() == compare.ConfirmContinue {
		ct.Observe(true)
	}
	require.Equal(t, compare.ConfirmImproved, ct.Decision())
}

// Under the null boundary (new fail probability equal to the baseline's
// bound) and with the decision read after every run, the test calls a
// regression in at most α/2 of the cases (Ville), here with a fixed seed.
func TestConfirmTestNullRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 2000
	wrong := 0
	for range trials {
		ct, err := compare.NewConfirmTest(compare.Regression, 0, 5, 1, 0.05, 200)
		require.NoError(t, err)
		for ct.Decision() == compare.ConfirmContinue {
			ct.Observe(rng.Float64() >= ct.Bound)
		}
		if ct.Decision() == compare.ConfirmRegressed {
			wrong++
		}
	}
	require.LessOrEqual(t, float64(wrong)/trials, 0.025, "%d of %d", wrong, trials)
}

func TestNewConfirmTestRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		dir        compare.ConfirmDirection
		hits, runs int
		m          int
		alpha      float64
		max        int
	}{{"sideways", 0, 1, 1, 0.05, 1}, {compare.Regression, 0, 0, 1, 0.05, 1}, {compare.Regression, 2, 1, 1, 0.05, 1},
		{compare.Regression, 0, 1, 0, 0.05, 1}, {compare.Regression, 0, 1, 1, 1, 1}, {compare.Regression, 0, 1, 1, 0.05, 0}} {
		_, err := compare.NewConfirmTest(tc.dir, tc.hits, tc.runs, tc.m, tc.alpha, tc.max)
		require.Error(t, err, "%+v", tc)
	}
}

// The cost table of the README: failures in a row it takes to confirm a
// regression against an all-pass baseline, by its size and the number of
// cases confirmed at once (α = 0.05).
func TestConfirmCostTable(t *testing.T) {
	for _, tc := range []struct{ baseline, m, want int }{
		{1, 1, 212}, {1, 3, 799}, {3, 1, 16}, {3, 3, 30}, {3, 10, 55},
		{5, 1, 8}, {5, 3, 14}, {5, 10, 23}, {10, 1, 5}, {10, 3, 7}, {10, 10, 10},
	} {
		ct, err := compare.NewConfirmTest(compare.Regression, 0, tc.baseline, tc.m, 0.05, 1000)
		require.NoError(t, err)
		for ct.Decision() == compare.ConfirmContinue {
			ct.Observe(false)
		}
		require.Equal(t, compare.ConfirmRegressed, ct.Decision(), "%+v", tc)
		require.Equal(t, tc.want, ct.Runs, "%+v", tc)
	}
	ct, _ := compare.NewConfirmTest(compare.Regression, 0, 1, 10, 0.05, 1000)
	for ct.Decision() == compare.ConfirmContinue {
		ct.Observe(false)
	}
	require.Equal(t, compare.ConfirmUndecided, ct.Decision())
}

// The held decision's own error: with the new fail probability at the
// bound, held is called in at most α/2 of the cases.
func TestConfirmTestHeldNullRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const trials = 2000
	wrong := 0
	for range trials {
		ct, err := compare.NewConfirmTest(compare.Regression, 1, 5, 1, 0.05, 200)
		require.NoError(t, err)
		for ct.Decision() == compare.ConfirmContinue {
			ct.Observe(rng.Float64() >= ct.Bound)
		}
		if ct.Decision() == compare.ConfirmHeld {
			wrong++
		}
	}
	require.LessOrEqual(t, float64(wrong)/trials, 0.025, "%d of %d", wrong, trials)
}
