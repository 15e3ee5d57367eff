package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	goldenfile "github.com/luxeval/lux/internal/golden"
)

// goldenInterval is the JSON form of an Interval; encoding/json writes the
// shortest decimal that round-trips, so equal text means equal bits.
type goldenInterval struct {
	Name                   string
	Method                 Method
	Level                  float64
	Estimate, Lower, Upper float64
	StdErr                 float64
	N, Units, Resamples    int
	Warnings               []string
}

func toGolden(name string, iv Interval) goldenInterval {
	g := goldenInterval{
		Name: name, Method: iv.Method, Level: iv.Level,
		Estimate: iv.Estimate, Lower: iv.Lower, Upper: iv.Upper, StdErr: iv.StdErr,
		N: iv.N, Units: iv.Units, Resamples: iv.Resamples,
	}
	for _, w := range iv.Warnings {
		g.Warnings = append(g.Warnings, w.Error())
	}
	return g
}

// goldenData is fixed input data generated from a fixed PCG stream.
func goldenData(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 99))
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Round(rng.Float64()*1000) / 1000
	}
	return v
}

func bernoulli(n int, p float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 98))
	v := make([]float64, n)
	for i := range v {
		if rng.Float64() < p {
			v[i] = 1
		}
	}
	return v
}

func labels(n, size int) []string {
	l := make([]string, n)
	for i := range l {
		l[i] = fmt.Sprintf("c%d", i/size)
	}
	return l
}

type bootstrapCase struct {
	name     string
	before   []float64 // set for a paired case
	values   []float64
	clusters []string
	cfg      Config
}

func bootstrapCases() []bootstrapCase {
	boot := func(seed uint64, resamples int, level float64) Config {
		return Config{Method: PercentileBootstrap, Seed: seed, Resamples: resamples, Level: level}
	}
	return []bootstrapCase{
		{name: "bernoulli 50 values", values: bernoulli(50, 0.7, 1), cfg: boot(42, 0, 0)},
		{name: "continuous 37 values, 90%", values: goldenData(37, 2), cfg: boot(7, 999, 0.9)},
		{name: "12 clusters of 5", values: bernoulli(60, 0.5, 3), clusters: labels(60, 5), cfg: boot(3, 2000, 0)},
		{name: "uneven clusters", values: goldenData(23, 4), clusters: []string{
			"a", "a", "a", "b", "c", "c", "d", "d", "d", "d", "e", "", "f", "f", "g", "h", "h", "i", "j", "j", "j", "k", "",
		}, cfg: boot(11, 1500, 0.99)},
		{name: "paired", before: bernoulli(40, 0.5, 5), values: bernoulli(40, 0.6, 6), cfg: boot(5, 2000, 0)},
		{name: "large, runs in parallel", values: goldenData(3001, 7), cfg: boot(1, 3000, 0)},
		{name: "large clustered, runs in parallel", values: goldenData(6000, 8), clusters: labels(6000, 3), cfg: boot(2, 1000, 0)},
		{name: "seed 0 and few resamples", values: goldenData(10, 9), cfg: boot(0, 100, 0)},
		{name: "max seed", values: goldenData(100, 10), cfg: boot(math.MaxUint64, 2000, 0)},
	}
}

func (c bootstrapCase) run() (Interval, error) {
	if c.before != nil {
		return Paired(c.before, c.values, c.clusters, c.cfg)
	}
	return Mean(c.values, c.clusters, c.cfg)
}

// TestBootstrapGolden pins the bootstrap's output bit for bit: the random
// stream, Lemire's method, the summation order and the quantile rule. A
// change here changes every recorded interval; regenerate with -update only
// on purpose.
func TestBootstrapGolden(t *testing.T) {
	var got []goldenInterval
	for _, c := range bootstrapCases() {
		iv, err := c.run()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got = append(got, toGolden(c.name, iv))
	}
	// The first outputs of the stream of resample 0 and 1 under seed 1.
	var stream []uint64
	for r := range uint64(2) {
		g := newStream(1, r)
		for range 3 {
			var x uint64
			g, x = g.next()
			stream = append(stream, x)
		}
	}
	type golden struct {
		Stream    []uint64
		Intervals []goldenInterval
	}
	text, err := json.MarshalIndent(golden{stream, got}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	goldenfile.JSON[golden](t, filepath.Join("testdata", "bootstrap.golden.json"), append(text, '\n'))
}

// TestBootstrapRepeatable: equal inputs and seed give equal intervals,
// different seeds different ones.
func TestBootstrapRepeatable(t *testing.T) {
	values := goldenData(200, 11)
	cfg := Config{Method: PercentileBootstrap, Seed: 9}
	a, _ := Mean(values, nil, cfg)
	b, _ := Mean(values, nil, cfg)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different intervals (-first +second):\n%s", diff)
	}
	cfg.Seed = 10
	c, _ := Mean(values, nil, cfg)
	if a.Lower == c.Lower && a.Upper == c.Upper {
		t.Errorf("seeds 9 and 10 gave the same interval [%v, %v]", a.Lower, a.Upper)
	}
}

// TestBootstrapIndependentOfGOMAXPROCS runs large bootstraps, which spread
// over goroutines, with one and with several Ps.
func TestBootstrapIndependentOfGOMAXPROCS(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	for _, c := range bootstrapCases() {
		var results []Interval
		for _, procs := range []int{1, 2, 3, 8} {
			runtime.GOMAXPROCS(procs)
			iv, err := c.run()
			if err != nil {
				t.Fatal(err)
			}
			results = append(results, iv)
		}
		for i, iv := range results[1:] {
			if diff := cmp.Diff(results[0], iv, cmp.Comparer(sameError)); diff != "" {
				t.Errorf("%s: GOMAXPROCS changes the result (-1 +%d):\n%s", c.name, []int{2, 3, 8}[i], diff)
			}
		}
	}
}

func sameError(a, b error) bool { return a.Error() == b.Error() }

// TestLemireUniform checks that indices drawn for an n that is not a power
// of two are uniform (χ² test at a fixed seed) and that the rejection path
// is taken for an n near 2³², where it matters.
func TestLemireUniform(t *testing.T) {
	const n, draws = 7, 700_000
	values := make([]float64, n)
	counts := make([]float64, n)
	for i := range n {
		// Value 2^(8i): the resample sum encodes how often each index was
		// drawn, in base 256, for resamples of 7 draws.
		values[i] = math.Ldexp(1, 8*i)
	}
	for r := range uint64(draws / n) {
		bits := uint64(math.Round(resampleValues(values, newStream(123, r)) * n))
		for i := range n {
			counts[i] += float64(bits >> (8 * i) & 0xff)
		}
	}
	chi2 := 0.0
	for _, c := range counts {
		e := float64(draws) / n
		chi2 += (c - e) * (c - e) / e
	}
	// 6 degrees of freedom: P(χ² > 22.46) = 0.001.
	if chi2 > 22.46 {
		t.Errorf("index counts %v: χ² = %.2f, not uniform", counts, chi2)
	}

	// n = 3·2³⁰: a quarter of all words fall in the rejection zone. Without
	// rejection ⌊w·n/2³²⌋ = ⌊3w/4⌋ would hit indices ≡ 0 (mod 3) half the
	// time; with it the residues are uniform.
	big := uint64(3) << 30
	thresh := uint32(-uint32(big)) % uint32(big)
	if thresh != 1<<30 {
		t.Fatalf("threshold = %d, want 2^30", thresh)
	}
	var residues [3]float64
	g := newStream(5, 0)
	const bigDraws = 300_000
	for range bigDraws {
		var x, m uint64
		g, x = g.next()
		g, m = lemire32(g, (x>>32)*big, big, thresh)
		if m>>32 >= big {
			t.Fatalf("index %d out of range", m>>32)
		}
		residues[(m>>32)%3]++
	}
	chi2 = 0
	for _, c := range residues {
		e := float64(bigDraws) / 3
		chi2 += (c - e) * (c - e) / e
	}
	// 2 degrees of freedom: P(χ² > 13.82) = 0.001.
	if chi2 > 13.82 {
		t.Errorf("residues mod 3 %v: χ² = %.2f, rejection is not unbiased", residues, chi2)
	}
}

// TestLemire64 checks the full-width path used above 2³² units on
// n = 3·2⁶², where a quarter of all outputs fall in the rejection zone.
func TestLemire64(t *testing.T) {
	n := uint64(3) << 62
	var residues [3]float64
	g := newStream(6, 0)
	const draws = 300_000
	for range draws {
		var i uint64
		g, i = index64(g, n)
		if i >= n {
			t.Fatalf("index %d out of range", i)
		}
		residues[i%3]++
	}
	chi2 := 0.0
	for _, c := range residues {
		e := float64(draws) / 3
		chi2 += (c - e) * (c - e) / e
	}
	if chi2 > 13.82 {
		t.Errorf("residues mod 3 %v: χ² = %.2f, rejection is not unbiased", residues, chi2)
	}
}
