package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The coverage tests simulate many data sets from a known model (fixed
// seeds, so the counts are reproducible) and count how often the 95 %
// interval holds the true mean. With D data sets the count's standard error
// is √(0.95·0.05/D) ≈ 0.005 at D = 2000 and 0.007 at D = 1000; the bounds
// below leave about three standard errors under the method's known
// small-sample coverage, so a correct method passes at any seed and a
// wrong standard error (unclustered on clustered data, or a wrong quantile)
// fails.

type coverage struct {
	name     string
	lo, hi   float64 // accepted coverage range
	interval func(values []float64, clusters []string, seed uint64) (Interval, error)
	hits     int
	widths   float64
}

func (c *coverage) record(t *testing.T, values []float64, clusters []string, seed uint64, truth float64) {
	t.Helper()
	iv, err := c.interval(values, clusters, seed)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	if iv.Lower <= truth && truth <= iv.Upper {
		c.hits++
	}
	c.widths += iv.Upper - iv.Lower
}

func (c *coverage) check(t *testing.T, datasets int) float64 {
	t.Helper()
	rate := float64(c.hits) / float64(datasets)
	t.Logf("%-36s coverage %.3f (accept [%.3f, %.3f]), mean width %.4f", c.name, rate, c.lo, c.hi, c.widths/float64(datasets))
	if rate < c.lo || rate > c.hi {
		t.Errorf("%s: coverage %.3f outside [%.3f, %.3f]", c.name, rate, c.lo, c.hi)
	}
	return rate
}

func method(m Method, resamples int, useClusters bool) func([]float64, []string, uint64) (Interval, error) {
	return func(v []float64, c []string, seed uint64) (Interval, error) {
		if !useClusters {
			c = nil
		}
		return Mean(v, c, Config{Method: m, Resamples: resamples, Seed: seed})
	}
}

// TestCoverageBernoulli: independent 0/1 outcomes, n = 60. Each data set
// draws its own true rate uniformly from [0.15, 0.85], which averages out
// the oscillation of binomial coverage in p (see TestExactCoverageBernoulli).
func TestCoverageBernoulli(t *testing.T) {
	const n = 60
	datasets, bootDatasets := 2000, 1000
	if testing.Short() {
		datasets, bootDatasets = 1000, 300
	}
	analytic := []*coverage{
		{name: "wilson", lo: 0.93, hi: 0.97, interval: method(Wilson, 0, false)},
		{name: "normal", lo: 0.92, hi: 0.965, interval: method(Normal, 0, false)},
		{name: "t", lo: 0.925, hi: 0.97, interval: method(StudentT, 0, false)},
		{name: "hoeffding (conservative)", lo: 0.99, hi: 1, interval: method(Hoeffding, 0, false)},
	}
	boot := &coverage{name: "percentile bootstrap", lo: 0.905, hi: 0.975, interval: method(PercentileBootstrap, 1000, false)}
	rng := rand.New(rand.NewPCG(2024, 1))
	values := make([]float64, n)
	for d := range datasets {
		p := 0.15 + 0.7*rng.Float64()
		for i := range values {
			values[i] = 0
			if rng.Float64() < p {
				values[i] = 1
			}
		}
		for _, c := range analytic {
			c.record(t, values, nil, 0, p)
		}
		if d < bootDatasets {
			boot.record(t, values, nil, uint64(d), p)
		}
	}
	for _, c := range analytic {
		c.check(t, datasets)
	}
	boot.check(t, bootDatasets)
}

// TestExactCoverageBernoulli computes the exact coverage of the Wilson and
// normal intervals, Σ_k P(X = k)·[p ∈ interval(k)] for X ~ Binomial(n, p).
// Binomial coverage oscillates with n and p; Wilson stays near nominal
// throughout (Brown, Cai & DasGupta 2001, "Interval Estimation for a
// Binomial Proportion"), the normal interval dips lower.
func TestExactCoverageBernoulli(t *testing.T) {
	for _, n := range []int{40, 60, 100, 300} {
		for _, p := range []float64{0.2, 0.3, 0.5} {
			var wilson, normal float64
			for k := 0; k <= n; k++ {
				pk := BinomialCDF(k, n, p) - BinomialCDF(k-1, n, p)
				w, err := WilsonInterval(k, n, 0.95)
				if err != nil {
					t.Fatal(err)
				}
				if w.Lower <= p && p <= w.Upper {
					wilson += pk
				}
				values := make([]float64, n)
				for i := range k {
					values[i] = 1
				}
				iv, err := Mean(values, nil, Config{Method: Normal})
				if err != nil {
					t.Fatal(err)
				}
				if iv.Lower <= p && p <= iv.Upper {
					normal += pk
				}
			}
			if wilson < 0.925 || wilson > 0.97 {
				t.Errorf("n=%d p=%v: exact Wilson coverage %.4f", n, p, wilson)
			}
			if normal < 0.90 || normal > 0.96 {
				t.Errorf("n=%d p=%v: exact normal coverage %.4f", n, p, normal)
			}
		}
	}
}

// TestCoverageClustered: 40 clusters of 10 outcomes; each cluster has its
// own success rate drawn uniformly from [0.05, 0.95], so the intra-cluster
// correlation is about 0.27 and the design effect about 3.4. The true mean
// is 0.5. Cluster-aware intervals cover near 95 %; the same data treated as
// 400 independent values gives an interval √3.4 ≈ 1.85 times too narrow,
// which covers only about 70 % of the time.
func TestCoverageClustered(t *testing.T) {
	const clusters, size, truth = 40, 10, 0.5
	datasets, bootDatasets := 2000, 1000
	if testing.Short() {
		datasets, bootDatasets = 1000, 300
	}
	labels := make([]string, clusters*size)
	for i := range labels {
		labels[i] = fmt.Sprint(i / size)
	}
	aware := []*coverage{
		{name: "normal, clustered (CR1)", lo: 0.915, hi: 0.97, interval: method(Normal, 0, true)},
		{name: "t(C-1), clustered (CR1)", lo: 0.925, hi: 0.975, interval: method(StudentT, 0, true)},
		{name: "hoeffding on cluster means", lo: 0.99, hi: 1, interval: method(Hoeffding, 0, true)},
	}
	naive := &coverage{name: "normal, clusters ignored", lo: 0.55, hi: 0.85, interval: method(Normal, 0, false)}
	naiveT := &coverage{name: "t, clusters ignored", lo: 0.55, hi: 0.85, interval: method(StudentT, 0, false)}
	boot := &coverage{name: "cluster bootstrap", lo: 0.90, hi: 0.975, interval: method(PercentileBootstrap, 1000, true)}
	rng := rand.New(rand.NewPCG(2024, 2))
	values := make([]float64, clusters*size)
	for d := range datasets {
		for c := range clusters {
			rate := 0.05 + 0.9*rng.Float64()
			for i := c * size; i < (c+1)*size; i++ {
				values[i] = 0
				if rng.Float64() < rate {
					values[i] = 1
				}
			}
		}
		for _, c := range append(aware, naive, naiveT) {
			c.record(t, values, labels, 0, truth)
		}
		if d < bootDatasets {
			boot.record(t, values, labels, uint64(d), truth)
		}
	}
	var worstAware float64 = 1
	for _, c := range aware {
		worstAware = math.Min(worstAware, c.check(t, datasets))
	}
	worstAware = math.Min(worstAware, boot.check(t, bootDatasets))
	naiveRate := naive.check(t, datasets)
	naiveT.check(t, datasets)
	if naiveRate > worstAware-0.1 {
		t.Errorf("ignoring clusters covers %.3f, not visibly below the cluster-aware %.3f", naiveRate, worstAware)
	}
}
