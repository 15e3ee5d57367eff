package stats

import "math"

// DefaultCampaigns is the number of simulated campaigns of a
// [PlanSignTest] when PlanOptions.Campaigns is 0.
const DefaultCampaigns = 2000

// PlanOptions sets the size and seed of a planning simulation. Its zero
// value simulates 2000 campaigns with seed 0.
type PlanOptions struct {
	Campaigns int    // simulated campaigns; 0 means 2000
	Seed      uint64 // equal inputs and seed give equal plans
}

// SignTestPlan is what a sequential sign test is expected to spend and
// decide under a stated model, and the fixed-size design it replaces.
type SignTestPlan struct {
	Campaigns int
	// Crossed, Futile and Capped are the shares of campaigns that stopped
	// for each reason (Crossed: the null rejected, in either direction for
	// a two-sided test). Under an alternative, Crossed is the power; under
	// the null, it is the false-positive rate.
	Crossed, Futile, Capped float64
	MeanPairs               float64 // expected pairs to a decision
	MaxPairs                int     // the worst case: the cap
	// FixedPairs is the smallest number of pairs whose single exact sign
	// test (the conditional McNemar test, same sides and level) rejects at
	// least as often as the sequential test crossed, searched up to
	// 4·MaxPairs on the same simulated campaigns; 0 when none does.
	// FixedPower is that design's rejection rate.
	FixedPairs int
	FixedPower float64
}

// PlanSignTest simulates a [SignTest] with opts on campaigns that visit
// the cases round-robin, one pair per visit: case c passes the baseline
// with probability baseline[c] and the candidate with candidate[c],
// independently. It reports the expected spend (MeanPairs, against the
// worst case MaxPairs), the share of each decision, and the fixed-size
// design of equal power, the number a power analysis would have asked
// for. opts.MaxPairs must be set: without a cap a campaign under the null
// may never end. Each campaign draws from its own stream, seeded from
// (Seed, campaign) as the bootstrap's resamples are, so a plan is
// reproducible.
func PlanSignTest(opts SignTestOptions, baseline, candidate []float64, plan PlanOptions) (SignTestPlan, error) {
	o, err := opts.resolve()
	if err != nil {
		return SignTestPlan{}, err
	}
	if o.MaxPairs == 0 {
		return SignTestPlan{}, errorf(CodeConfig, "MaxPairs is 0: a plan needs a cap on pairs")
	}
	if len(baseline) == 0 || len(baseline) != len(candidate) {
		return SignTestPlan{}, errorf(CodeLength, "%d baseline and %d candidate pass probabilities, want one of each per case", len(baseline), len(candidate))
	}
	for i := range baseline {
		if !(baseline[i] >= 0 && baseline[i] <= 1 && candidate[i] >= 0 && candidate[i] <= 1) {
			return SignTestPlan{}, errorf(CodeDomain, "case %d: pass probabilities %v and %v, want values in [0, 1]", i, baseline[i], candidate[i])
		}
	}
	campaigns := plan.Campaigns
	switch {
	case campaigns == 0:
		campaigns = DefaultCampaigns
	case campaigns < 0:
		return SignTestPlan{}, errorf(CodeConfig, "Campaigns is %d, want 0 (default %d) or a positive count", campaigns, DefaultCampaigns)
	}
	fixedMax := 4 * o.MaxPairs
	reject := fixedRejects(o, fixedMax)
	rejected := make([]int, fixedMax+1)
	res := SignTestPlan{Campaigns: campaigns, MaxPairs: o.MaxPairs}
	var crossed, futile, capped, used int
	for k := range campaigns {
		g := newStream(plan.Seed, uint64(k))
		test := &SignTest{st: SignTestState{Options: o, Lower: 0, Upper: 1, Stop: Continuing}}
		w, l := 0, 0
		for n := 1; n <= fixedMax; n++ {
			c := (n - 1) % len(baseline)
			var u1, u2 float64
			g, u1 = uniform(g)
			g, u2 = uniform(g)
			b, a := u1 < baseline[c], u2 < candidate[c]
			if test.st.Stop == Continuing {
				test.Observe(b, a)
			}
			if a && !b {
				w++
			} else if b && !a {
				l++
			}
			if reject(w, l) {
				rejected[n]++
			}
		}
		switch test.st.Stop {
		case Crossed:
			crossed++
		case Futile:
			futile++
		default:
			capped++
		}
		used += test.st.Pairs
	}
	fc := float64(campaigns)
	res.Crossed, res.Futile, res.Capped = float64(crossed)/fc, float64(futile)/fc, float64(capped)/fc
	res.MeanPairs = float64(used) / fc
	for n := 1; n <= fixedMax; n++ {
		if pw := float64(rejected[n]) / fc; pw >= res.Crossed && crossed > 0 {
			res.FixedPairs, res.FixedPower = n, pw
			break
		}
	}
	return res, nil
}

// uniform draws a float64 in [0, 1) from the top 53 bits of an output.
func uniform(g xoshiro) (xoshiro, float64) {
	g, x := g.next()
	return g, float64(x>>11) * 0x1p-53
}

// fixedRejects returns the rejection rule of the exact sign test at a
// fixed size, for up to maxD discordant pairs: with d = w + l,
// P(Bin(d, ½) ≥ w) ≤ α for Greater, P(Bin(d, ½) ≤ w) ≤ α for Less, and
// twice the smaller tail ≤ α for TwoSided (exact McNemar). The binomial
// tails are I_½ values, in log space.
func fixedRejects(o SignTestOptions, maxD int) func(w, l int) bool {
	alpha := 1 - o.Level
	tailAlpha := alpha
	if o.Alternative == TwoSided {
		tailAlpha = alpha / 2
	}
	logA := math.Log(tailAlpha)
	// crit[d]: the largest k with P(Bin(d, ½) ≤ k) ≤ tailAlpha, or −1.
	crit := make([]int, maxD+1)
	for d := range crit {
		crit[d] = -1
		for k := 0; k < d; k++ {
			// P(X ≤ k) = I_½(d−k, k+1).
			if logRegIncBeta(0.5, float64(d-k), float64(k+1)) > logA {
				break
			}
			crit[d] = k
		}
	}
	return func(w, l int) bool {
		d := w + l
		switch o.Alternative {
		case Greater:
			return l <= crit[d]
		case Less:
			return w <= crit[d]
		}
		return min(w, l) <= crit[d]
	}
}
