package stats

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// The simulation behind the package documentation's claims about the
// sequential tests: under the null the error rate stays at most α however
// often the results are looked at, and under an alternative a decision
// comes after fewer runs than a fixed-size design of equal power.
//
// Model (the null runs here; the alternative through PlanSignTest, which
// uses the same round-robin model): 40 cases; case c passes the baseline with probability
// π_c = 0.2 + 0.6·c/39 (mean 0.5) and the candidate with π_c under the
// null, π_c + 0.2 under the alternative (mean 0.7). Pairs visit the cases
// round-robin; each pair is one independent run of each system on the
// case. Every campaign has its own PCG stream, seeded by (seed, campaign).

const simCases = 40

func simRates(shift float64) (base, cand [simCases]float64) {
	for c := range simCases {
		base[c] = 0.2 + 0.6*float64(c)/(simCases-1)
		cand[c] = base[c] + shift
	}
	return base, cand
}

// simPairs draws n pairs of one campaign: per pair, did the baseline and
// the candidate pass.
func simPairs(seed, campaign uint64, n int, shift float64) [][2]bool {
	rng := rand.New(rand.NewPCG(seed, campaign))
	base, cand := simRates(shift)
	out := make([][2]bool, n)
	for i := range out {
		c := i % simCases
		out[i] = [2]bool{rng.Float64() < base[c], rng.Float64() < cand[c]}
	}
	return out
}

// nullResult counts, per procedure, the campaigns in which it ever
// rejected the (true) null.
type nullResult struct {
	campaigns int
	names     []string
	rejected  map[string]int
	// futileMean is the mean number of pairs a one-sided sign test with a
	// futility rule (win rate 0.65) spends before it stops.
	futileMean float64
}

// simNull runs campaigns of maxPairs pairs under the null and looks after
// every pair.
func simNull(seed uint64, campaigns, maxPairs int, alpha float64) nullResult {
	res := nullResult{campaigns: campaigns, rejected: map[string]int{}, names: []string{
		"e-process sign test, two-sided",
		"e-process sign test, one-sided (improvement)",
		"betting e-value on differences, two-sided",
		"naive z-test on differences, two-sided",
		"naive z-test on differences, one-sided",
		"naive McNemar exact, two-sided",
	}}
	level := 1 - alpha
	z2, z1 := NormalQuantile(1-alpha/2), NormalQuantile(1-alpha)
	for k := range campaigns {
		pairs := simPairs(seed, uint64(k), maxPairs, 0)
		two, _ := NewSignTest(SignTestOptions{Level: level})
		one, _ := NewSignTest(SignTestOptions{Level: level, Alternative: Greater})
		bet, _ := NewBettingSequence(CSOptions{Level: level, Min: -1, Max: 1, Grid: 10})
		fut, _ := NewSignTest(SignTestOptions{Level: level, Alternative: Greater, Futility: 0.65, MaxPairs: maxPairs})
		ever := map[string]bool{}
		var sum, sumSq float64
		wins, losses := 0, 0
		for i, p := range pairs {
			if two.Observe(p[0], p[1]).Stop == Crossed {
				ever[res.names[0]] = true
			}
			if one.Observe(p[0], p[1]).Stop == Crossed {
				ever[res.names[1]] = true
			}
			fut.Observe(p[0], p[1])
			d := b2f(p[1]) - b2f(p[0])
			if r, _ := bet.Observe(d); r.PValue <= alpha {
				ever[res.names[2]] = true
			}
			sum += d
			sumSq += d * d
			switch {
			case d > 0:
				wins++
			case d < 0:
				losses++
			}
			if n := float64(i + 1); i > 0 {
				v := (sumSq - sum*sum/n) / (n - 1)
				if v > 0 {
					z := sum / n / math.Sqrt(v/n)
					ever[res.names[3]] = ever[res.names[3]] || math.Abs(z) >= z2
					ever[res.names[4]] = ever[res.names[4]] || z >= z1
				}
			}
			if McNemarExact(wins, losses) <= alpha {
				ever[res.names[5]] = true
			}
		}
		for name, r := range ever {
			if r {
				res.rejected[name]++
			}
		}
		res.futileMean += float64(fut.Result().Pairs) / float64(campaigns)
	}
	return res
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// writeNullTable prints the null simulation with Clopper-Pearson
// intervals.
func writeNullTable(w io.Writer, r nullResult, maxPairs int, alpha float64) {
	fmt.Fprintf(w, "Null (no case's pass rate changes), %d campaigns of up to %d pairs, looked at after every pair, α = %g:\n", r.campaigns, maxPairs, alpha)
	fmt.Fprintf(w, "  %-46s %9s %7s  %s\n", "procedure", "rejected", "rate", "95% Clopper-Pearson")
	for _, name := range r.names {
		k := r.rejected[name]
		iv, _ := ClopperPearsonInterval(k, r.campaigns, 0.95)
		fmt.Fprintf(w, "  %-46s %9d %7.4f  [%.4f, %.4f]\n", name, k, float64(k)/float64(r.campaigns), iv.Lower, iv.Upper)
	}
	fmt.Fprintf(w, "  The one-sided sign test runs to the cap under the null unless it has a futility rule;\n")
	fmt.Fprintf(w, "  with Futility 0.65 it stops after %.1f pairs on average.\n", r.futileMean)
}

// simDesign is a sequential design of the alternative table: the prior
// Beta(a, b) truncated to p > ½, the cap on pairs and the futility
// threshold.
type simDesign struct {
	a, b     float64
	cap      int
	futility float64
}

// planAlternative plans a one-sided design under the alternative
// 0.5 → 0.7.
func planAlternative(campaigns int, seed uint64, alpha float64, d simDesign) SignTestPlan {
	base, cand := simRates(0.2)
	plan, err := PlanSignTest(SignTestOptions{Level: 1 - alpha, Alternative: Greater, PriorA: d.a, PriorB: d.b,
		MaxPairs: d.cap, Futility: d.futility}, base[:], cand[:], PlanOptions{Campaigns: campaigns, Seed: seed})
	if err != nil {
		panic(err)
	}
	return plan
}

func writeAltTable(w io.Writer, rows []SignTestPlan, designs []simDesign, alpha float64) {
	fmt.Fprintf(w, "Alternative (pass rates 0.5 → 0.7 over %d cases), one-sided, α = %g, %d campaigns:\n", simCases, alpha, rows[0].Campaigns)
	fmt.Fprintf(w, "  %-12s %6s %8s %8s %12s %9s %12s %8s\n", "prior", "cap", "futility", "power", "mean pairs", "fixed n", "fixed power", "saving")
	for i, r := range rows {
		fut := "-"
		if designs[i].futility > 0 {
			fut = fmt.Sprint(designs[i].futility)
		}
		saving := 1 - r.MeanPairs/float64(r.FixedPairs)
		fmt.Fprintf(w, "  %-12s %6d %8s %8.3f %12.1f %9d %12.3f %7.1f%%\n", fmt.Sprintf("Beta(%g,%g)", designs[i].a, designs[i].b),
			r.MaxPairs, fut, r.Crossed, r.MeanPairs, r.FixedPairs, r.FixedPower, 100*saving)
	}
}

// TestSequentialSimulation is the fast, fixed-seed version of the
// simulation: 400 null campaigns of 200 pairs and 400 alternative ones.
func TestSequentialSimulation(t *testing.T) {
	const alpha = 0.05
	null := simNull(1, 400, 200, alpha)
	var sb strings.Builder
	writeNullTable(&sb, null, 200, alpha)
	limit := alpha + 3*math.Sqrt(alpha*(1-alpha)/400)
	for _, name := range null.names[:3] {
		if rate := float64(null.rejected[name]) / 400; rate > limit {
			t.Errorf("%s: false-positive rate %.3f above %.3f", name, rate, limit)
		}
	}
	if rate := float64(null.rejected[null.names[3]]) / 400; rate < 3*alpha {
		t.Errorf("the peeked z-test rejected in only %.3f of null campaigns; the simulation no longer shows the inflation", rate)
	}
	design := simDesign{7, 3, 200, 0}
	alt := planAlternative(400, 2, alpha, design)
	writeAltTable(&sb, []SignTestPlan{alt}, []simDesign{design}, alpha)
	t.Log("\n" + sb.String())
	if saving := 1 - alt.MeanPairs/float64(alt.FixedPairs); saving < 0.3 || alt.Crossed < 0.8 {
		t.Errorf("sequential design: power %.3f, %.1f pairs on average against a fixed %d: saving %.2f, want ≥ 0.30 at power ≥ 0.8",
			alt.Crossed, alt.MeanPairs, alt.FixedPairs, saving)
	}
}

// BenchmarkSequentialSimulation prints the full simulation (2,000
// campaigns each way); run it once:
//
//	go test -run '^$' -bench SequentialSimulation -benchtime 1x ./stats/
func BenchmarkSequentialSimulation(b *testing.B) {
	const alpha, campaigns, maxPairs = 0.05, 2000, 200
	designs := []simDesign{{1, 1, 200, 0}, {7, 3, 200, 0}, {14, 6, 200, 0}, {7, 3, 200, 0.65}, {7, 3, 100, 0}, {7, 3, 60, 0}}
	for range b.N {
		null := simNull(1, campaigns, maxPairs, alpha)
		var rows []SignTestPlan
		for _, d := range designs {
			rows = append(rows, planAlternative(campaigns, 2, alpha, d))
		}
		b.StopTimer()
		writeNullTable(os.Stdout, null, maxPairs, alpha)
		writeAltTable(os.Stdout, rows, designs, alpha)
		b.StartTimer()
	}
}
