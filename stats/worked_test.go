package stats

import (
	"fmt"
	"math"
	"testing"
)

// The worked values of the statistics notes (checked there against
// statsmodels and scipy), each reproduced to 1e-6.

const workedTol = 1e-6

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.9g, want %.9g (±%g)", what, got, want, tol)
	}
}

func TestWorkedCLT(t *testing.T) {
	iv, err := Mean([]float64{1, 0, 1, 1}, nil, Config{Method: Normal})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "mean", iv.Estimate, 0.75, workedTol)
	near(t, "SE", iv.StdErr, 0.25, workedTol)
	near(t, "lower", iv.Lower, 0.75-1.959963984540054*0.25, 1e-12)
}

// paperClusteredSE is the clustered standard error in the form of Miller
// 2024, Appendix A: SE_CLT² plus the within-cluster cross products over n².
func paperClusteredSE(values []float64, clusters []string) float64 {
	n := float64(len(values))
	m := mean(values)
	se2 := math.Pow(sampleSD(values), 2) / n
	cross := 0.0
	for i := range values {
		for j := range values {
			if i != j && clusters[i] == clusters[j] {
				cross += (values[i] - m) * (values[j] - m)
			}
		}
	}
	return math.Sqrt(se2 + cross/(n*n))
}

func TestWorkedClustered(t *testing.T) {
	tests := []struct {
		name                  string
		values                []float64
		clusters              []string
		mean, clt, cr1, paper float64
	}{
		{
			name:     "two clusters of two",
			values:   []float64{1, 0, 1, 1},
			clusters: []string{"A", "A", "B", "B"},
			mean:     0.75, clt: 0.25, cr1: 0.25, paper: 0.216506,
		},
		{
			name:     "four clusters of ten values",
			values:   []float64{1, 1, 0, 1, 0, 0, 1, 1, 1, 0},
			clusters: []string{"1", "1", "1", "2", "2", "3", "3", "3", "4", "4"},
			mean:     0.6, clt: 0.163299, cr1: 0.046188, paper: 0.065320,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clt, err := StdErr(tt.values, nil)
			if err != nil {
				t.Fatal(err)
			}
			near(t, "SE_CLT", clt, tt.clt, workedTol)
			cr1, err := StdErr(tt.values, tt.clusters)
			if err != nil {
				t.Fatal(err)
			}
			near(t, "SE_CR1", cr1, tt.cr1, workedTol)
			near(t, "SE paper form", paperClusteredSE(tt.values, tt.clusters), tt.paper, workedTol)
			for _, m := range []Method{Normal, StudentT} {
				iv, err := Mean(tt.values, tt.clusters, Config{Method: m})
				if err != nil {
					t.Fatal(err)
				}
				near(t, string(m)+" estimate", iv.Estimate, tt.mean, workedTol)
				near(t, string(m)+" StdErr", iv.StdErr, tt.cr1, workedTol)
			}
		})
	}
}

func TestWorkedWilson(t *testing.T) {
	tests := []struct {
		k, n         int
		lower, upper float64
	}{
		{7, 10, 0.396778, 0.892209},
		{0, 10, 0, 0.277533},
		{10, 10, 0.722467, 1},
		{45, 50, 0.786398, 0.956524},
		{0, 30, 0, 0.113513},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d of %d", tt.k, tt.n), func(t *testing.T) {
			iv, err := WilsonInterval(tt.k, tt.n, 0.95)
			if err != nil {
				t.Fatal(err)
			}
			near(t, "lower", iv.Lower, tt.lower, workedTol)
			near(t, "upper", iv.Upper, tt.upper, workedTol)
			// The same through Mean on 0/1 values.
			values := make([]float64, tt.n)
			for i := range tt.k {
				values[i] = 1
			}
			viaMean, err := Mean(values, nil, Config{Method: Wilson})
			if err != nil {
				t.Fatal(err)
			}
			if viaMean.Lower != iv.Lower || viaMean.Upper != iv.Upper {
				t.Errorf("Mean(Wilson) = [%v, %v], WilsonInterval = [%v, %v]", viaMean.Lower, viaMean.Upper, iv.Lower, iv.Upper)
			}
		})
	}
}

func TestWorkedHoeffding(t *testing.T) {
	tests := []struct {
		n    int
		half float64
	}{
		{10, 0.429469},
		{30, 0.247954},
		{100, 0.135810},
		{1000, 0.042947},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("n=%d", tt.n), func(t *testing.T) {
			near(t, "HoeffdingHalfWidth", HoeffdingHalfWidth(tt.n, 0.95), tt.half, workedTol)
			values := make([]float64, tt.n) // mean 0.5, so no clipping
			for i := range values {
				values[i] = float64(i % 2)
			}
			iv, err := Mean(values, nil, Config{Method: Hoeffding})
			if err != nil {
				t.Fatal(err)
			}
			near(t, "half-width of Mean(Hoeffding)", (iv.Upper-iv.Lower)/2, tt.half, workedTol)
			// n for a half-width: the inverse, up to rounding of the width.
			exact := HoeffdingHalfWidth(tt.n, 0.95)
			if got := HoeffdingSampleSize(exact*(1+1e-12), 0.95); got != tt.n {
				t.Errorf("HoeffdingSampleSize(%v) = %d, want %d", exact, got, tt.n)
			}
			if got := HoeffdingSampleSize(exact*(1-1e-9), 0.95); got != tt.n+1 {
				t.Errorf("HoeffdingSampleSize(just below %v) = %d, want %d", exact, got, tt.n+1)
			}
		})
	}
}

func TestWorkedPaired(t *testing.T) {
	a := []float64{1, 1, 0, 1, 0, 1, 1, 0, 1, 1}
	b := []float64{1, 0, 0, 1, 0, 1, 0, 0, 1, 0}
	iv, err := Paired(b, a, nil, Config{Method: Normal})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "delta", iv.Estimate, 0.3, workedTol)
	near(t, "SE_paired", iv.StdErr, 0.152753, workedTol)
	ivA, _ := Mean(a, nil, Config{Method: Normal})
	ivB, _ := Mean(b, nil, Config{Method: Normal})
	unpaired := math.Hypot(ivA.StdErr, ivB.StdErr)
	near(t, "SE_unpaired", unpaired, 0.223607, workedTol)
	if math.Abs(iv.StdErr-unpaired) < 0.05 {
		t.Errorf("Paired used the unpaired standard error %v", iv.StdErr)
	}
}

func TestWorkedMcNemar(t *testing.T) {
	tests := []struct {
		b, c    int
		p, chi2 float64
	}{
		{b: 3, c: 0, p: 0.25, chi2: 1.333333},
		{b: 10, c: 2, p: 0.038574, chi2: 4.083333},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("b=%d,c=%d", tt.b, tt.c), func(t *testing.T) {
			near(t, "exact p", McNemarExact(tt.b, tt.c), tt.p, workedTol)
			near(t, "exact p (swapped)", McNemarExact(tt.c, tt.b), tt.p, workedTol)
			stat, p := McNemarChiSquare(tt.b, tt.c)
			near(t, "chi2cc", stat, tt.chi2, workedTol)
			near(t, "chi2cc p", p, math.Erfc(math.Sqrt(tt.chi2/2)), workedTol)
		})
	}
}

func TestWorkedSampleSize(t *testing.T) {
	z := NormalQuantile(0.975) + NormalQuantile(0.8)
	near(t, "(z_.975 + z_.8)^2", z*z, 7.8489, 1e-4)
	tests := []struct {
		variance float64
		n        int
	}{
		{0.25, 2181},
		{0.125, 1091},
		{0.10, 873},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("variance=%v", tt.variance), func(t *testing.T) {
			if got := SampleSize(0.03, tt.variance, 0.05, 0.8); got != tt.n {
				t.Errorf("SampleSize = %d, want %d", got, tt.n)
			}
			// The MDE at that n is just below delta, and just above it one
			// case fewer.
			if mde := MinimumDetectableEffect(tt.n, tt.variance, 0.05, 0.8); mde > 0.03 {
				t.Errorf("MDE(%d) = %v, want ≤ 0.03", tt.n, mde)
			}
			if mde := MinimumDetectableEffect(tt.n-1, tt.variance, 0.05, 0.8); mde <= 0.03 {
				t.Errorf("MDE(%d) = %v, want > 0.03", tt.n-1, mde)
			}
		})
	}
}

func TestWorkedRepeats(t *testing.T) {
	r, err := ReduceRepeats([][]float64{{1, 1, 1}, {1, 0, 1}, {0, 0, 1}, {0, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "SE", r.StdErr, 0.215166, workedTol)
	near(t, "E[sigma^2]", r.WithinVar, 0.166667, workedTol)
	near(t, "Var(x)", r.BetweenVar, 0.129630, workedTol)
	for _, tt := range []struct {
		k  int
		se float64
	}{{1, 0.272166}, {10, 0.191243}, {100, 0.181174}, {3, 0.215166}} {
		near(t, fmt.Sprintf("projected SE K=%d", tt.k), r.ProjectedStdErr(4, tt.k), tt.se, workedTol)
	}
}

func TestWorkedPassK(t *testing.T) {
	for k, want := range []float64{0.3, 0.533333, 0.708333, 0.833333, 0.916667} {
		got, err := PassAtK(10, 3, k+1)
		if err != nil {
			t.Fatal(err)
		}
		near(t, fmt.Sprintf("pass@%d", k+1), got, want, workedTol)
	}
	for k, want := range []float64{0.7, 0.466667, 0.291667} {
		got, err := PassHatK(10, 7, k+1)
		if err != nil {
			t.Fatal(err)
		}
		near(t, fmt.Sprintf("pass^%d", k+1), got, want, workedTol)
	}
}

func TestWorkedTQuantiles(t *testing.T) {
	for _, tt := range []struct {
		df   int
		want float64
	}{{1, 12.706204736}, {2, 4.3027}, {3, 3.1824}, {4, 2.776445105}, {9, 2.262157163}, {29, 2.045229642}} {
		tol := 1e-9
		if tt.df == 2 || tt.df == 3 {
			tol = 1e-4 // given to four places
		}
		near(t, fmt.Sprintf("t(0.975, %d)", tt.df), StudentTQuantile(0.975, tt.df), tt.want, tol)
	}
	near(t, "z(0.975)", NormalQuantile(0.975), 1.959963984540054, 1e-12)
}
