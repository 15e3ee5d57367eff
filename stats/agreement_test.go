package stats

import (
	"errors"
	"math"
	"testing"
)

// krippendorff2011 is the reliability data of Krippendorff (2011),
// "Computing Krippendorff's Alpha-Reliability", section C (nominal data,
// any number of observers, missing values): 4 observers × 12 units, "."
// for a missing value. Per unit (observers A, B, C, D):
//
//	unit:  1  2  3  4  5  6  7  8  9  10 11 12
//	A:     1  2  3  3  2  1  4  1  2  .  .  .
//	B:     1  2  3  3  2  2  4  1  2  5  .  3
//	C:     .  3  3  3  2  3  4  2  2  5  1  .
//	D:     1  2  3  3  2  4  4  1  2  5  1  .
//
// Unit 12 has one value and is not pairable, leaving n = 40 pairable
// values. The paper's results: nominal α = 0.743, interval α = 0.849.
var krippendorff2011 = [][]float64{
	{1, 1, 1},
	{2, 2, 3, 2},
	{3, 3, 3, 3},
	{3, 3, 3, 3},
	{2, 2, 2, 2},
	{1, 2, 3, 4},
	{4, 4, 4, 4},
	{1, 1, 2, 1},
	{2, 2, 2, 2},
	{5, 5, 5},
	{1, 1},
	{3},
}

func TestKrippendorffAlphaPublishedExample(t *testing.T) {
	for _, tc := range []struct {
		metric AlphaMetric
		want   float64
	}{
		{Nominal, 0.743},
		{IntervalMetric, 0.849},
	} {
		t.Run(string(tc.metric), func(t *testing.T) {
			iv, err := KrippendorffAlpha(krippendorff2011, tc.metric, Config{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			near(t, "alpha", iv.Estimate, tc.want, 0.0005)
			near(t, "alpha (by the coincidence matrix)", iv.Estimate, alphaByCoincidence(krippendorff2011, tc.metric), 1e-12)
			if iv.N != 40 || iv.Units != 11 {
				t.Errorf("N, Units = %d, %d; want 40 values in 11 pairable units", iv.N, iv.Units)
			}
			if !(iv.Lower <= iv.Estimate && iv.Estimate <= iv.Upper) || iv.Lower >= iv.Upper {
				t.Errorf("interval [%v, %v] does not bracket %v", iv.Lower, iv.Upper, iv.Estimate)
			}
			if iv.Method != PercentileBootstrap || iv.Resamples != DefaultResamples {
				t.Errorf("method %s with %d resamples, want the percentile bootstrap with %d", iv.Method, iv.Resamples, DefaultResamples)
			}
		})
	}
}

// alphaByCoincidence computes alpha straight from Krippendorff's
// definitions: the coincidence matrix o_ck = Σ_u (pairs c-k in u)/(m_u − 1),
// n_c = Σ_k o_ck, α = 1 − (n − 1) Σ o_ck δ_ck / Σ n_c n_k δ_ck.
func alphaByCoincidence(units [][]float64, metric AlphaMetric) float64 {
	o := map[[2]float64]float64{}
	for _, u := range units {
		if len(u) < 2 {
			continue
		}
		for i := range u {
			for j := range u {
				if i != j {
					o[[2]float64{u[i], u[j]}] += 1 / float64(len(u)-1)
				}
			}
		}
	}
	nc := map[float64]float64{}
	n := 0.0
	for ck, v := range o {
		nc[ck[0]] += v
		n += v
	}
	delta := func(c, k float64) float64 {
		if metric == Nominal {
			if c == k {
				return 0
			}
			return 1
		}
		return (c - k) * (c - k)
	}
	obs, exp := 0.0, 0.0
	for ck, v := range o {
		obs += v * delta(ck[0], ck[1])
	}
	for c, a := range nc {
		for k, b := range nc {
			exp += a * b * delta(c, k)
		}
	}
	return 1 - (n-1)*obs/exp
}

// TestCohenKappaByHand: 50 units, two raters saying yes or no:
//
//	            b yes  b no
//	a yes        20      5
//	a no         10     15
//
// p_o = (20 + 15)/50 = 0.7; a says yes 25/50 = 0.5, b 30/50 = 0.6, so
// p_e = 0.5·0.6 + 0.5·0.4 = 0.5 and κ = (0.7 − 0.5)/(1 − 0.5) = 0.4.
func TestCohenKappaByHand(t *testing.T) {
	var a, b []string
	add := func(n int, x, y string) {
		for range n {
			a, b = append(a, x), append(b, y)
		}
	}
	add(20, "yes", "yes")
	add(5, "yes", "no")
	add(10, "no", "yes")
	add(15, "no", "no")
	iv, err := CohenKappa(a, b, Config{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "kappa", iv.Estimate, 0.4, 1e-12)
	if !(iv.Lower < 0.4 && 0.4 < iv.Upper) {
		t.Errorf("interval [%v, %v] does not bracket 0.4", iv.Lower, iv.Upper)
	}
	// The bootstrap is seeded: the same seed gives the same interval, another
	// seed another.
	again, _ := CohenKappa(a, b, Config{Seed: 7})
	other, _ := CohenKappa(a, b, Config{Seed: 8})
	if again.Lower != iv.Lower || again.Upper != iv.Upper {
		t.Errorf("seed 7 twice gave [%v, %v] and [%v, %v]", iv.Lower, iv.Upper, again.Lower, again.Upper)
	}
	if other.Lower == iv.Lower && other.Upper == iv.Upper {
		t.Errorf("seeds 7 and 8 gave the same interval [%v, %v]", iv.Lower, iv.Upper)
	}
	// For two raters and nominal data without missing values, alpha is
	// kappa's sibling with pooled marginals (Scott's pi with a small-sample
	// correction): α = 1 − (n−1)·(2·15)/(2·n_yes·n_no) over 2n = 100 values,
	// n_yes = 55, n_no = 45: 1 − 99·30/4950 = 0.4.
	var units [][]float64
	for i := range a {
		units = append(units, []float64{yes(a[i]), yes(b[i])})
	}
	alpha, err := KrippendorffAlpha(units, Nominal, Config{})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "alpha", alpha.Estimate, 1-99.0*30/4950, 1e-12)
}

func yes(s string) float64 {
	if s == "yes" {
		return 1
	}
	return 0
}

func TestAgreementRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		call func() error
	}{
		{"kappa lengths", ErrLength, func() error {
			_, err := CohenKappa([]string{"a", "b"}, []string{"a"}, Config{})
			return err
		}},
		{"kappa too few", ErrTooFewUnits, func() error {
			_, err := CohenKappa([]string{"a"}, []string{"a"}, Config{})
			return err
		}},
		{"kappa one category", ErrDomain, func() error {
			_, err := CohenKappa([]string{"p", "p", "p"}, []string{"p", "p", "p"}, Config{})
			return err
		}},
		{"kappa method", ErrMethod, func() error {
			_, err := CohenKappa([]string{"p", "f"}, []string{"p", "f"}, Config{Method: Wilson})
			return err
		}},
		{"alpha unpairable", ErrTooFewUnits, func() error {
			_, err := KrippendorffAlpha([][]float64{{1, 0}, {1}, {0}}, Nominal, Config{})
			return err
		}},
		{"alpha all equal", ErrDomain, func() error {
			_, err := KrippendorffAlpha([][]float64{{1, 1}, {1, 1, 1}}, IntervalMetric, Config{})
			return err
		}},
		{"alpha NaN", ErrNonFinite, func() error {
			_, err := KrippendorffAlpha([][]float64{{1, math.NaN()}, {1, 0}}, Nominal, Config{})
			return err
		}},
		{"alpha metric", ErrMethod, func() error {
			_, err := KrippendorffAlpha([][]float64{{1, 0}, {1, 0}}, "ordinal", Config{})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
		})
	}
}

func TestAgreementDegenerateResamplesWarned(t *testing.T) {
	// Three units, one disagreement: many resamples draw only agreeing
	// units in one category, where kappa is undefined.
	iv, err := CohenKappa([]string{"p", "p", "f"}, []string{"p", "f", "f"}, Config{Seed: 3, Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	codes := map[Code]bool{}
	for _, w := range iv.Warnings {
		codes[w.Code] = true
	}
	for _, c := range []Code{WarnDegenerate, WarnFewUnits, WarnFewResamples} {
		if !codes[c] {
			t.Errorf("no %s warning in %v", c, iv.Warnings)
		}
	}
}
