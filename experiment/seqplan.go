package experiment

import (
	"fmt"
	"io"

	"github.com/luxeval/lux/stats"
)

// SequentialPlanReport is what a sequential campaign may spend: the worst
// case (every valid candidate runs every case MaxRounds times) and, for
// each sign-test gate under the alternative the campaign states
// (sequential.plan), the expected spend and decisions from
// stats.PlanSignTest, against the fixed-size design of equal power.
type SequentialPlanReport struct {
	Alpha     float64 `json:"alpha"`     // the campaign's, over the variants
	TestAlpha float64 `json:"testAlpha"` // each test's: alpha / variants
	MinRounds int     `json:"minRounds"`
	MaxRounds int     `json:"maxRounds"`
	// RunsPerRound is one round of one candidate: profiles × cases.
	RunsPerRound  int             `json:"runsPerRound"`
	WorstCaseRuns int             `json:"worstCaseRuns"`
	Alternative   *SequentialPlan `json:"alternative,omitempty"`
	Gates         []GatePlan      `json:"gates"`
}

// GatePlan is the planned spend of one sign-test gate of one variant
// under the stated alternative: every case passes with probability
// Alternative.Baseline under the baseline and Alternative.Candidate under
// the variant, cases visited round-robin, one pair each, as the rounds do.
type GatePlan struct {
	Constraint int    `json:"constraint"`
	Split      string `json:"split"`
	Cases      int    `json:"cases"`
	Campaigns  int    `json:"campaigns"` // simulated
	// Crossed, Futile and Capped are the shares of simulated campaigns
	// that stopped so (Crossed is the power).
	Crossed float64 `json:"crossed"`
	Futile  float64 `json:"futile"`
	Capped  float64 `json:"capped"`
	// ExpectedPairs is the mean pairs to a decision; MaxPairs the cap.
	ExpectedPairs float64 `json:"expectedPairs"`
	MaxPairs      int     `json:"maxPairs"`
	// ExpectedRounds is ExpectedPairs / Cases: a round, once started, is
	// run whole, so the campaign runs up to one round more.
	ExpectedRounds float64 `json:"expectedRounds"`
	// FixedPairs is the fixed-size exact sign test of equal power (0 when
	// none up to 4·MaxPairs reaches it), FixedPower its power.
	FixedPairs int     `json:"fixedPairs"`
	FixedPower float64 `json:"fixedPower"`
}

// planSequential computes the sequential part of the plan.
func (s *state) planSequential(p *CampaignPlan) error {
	c := &s.camp
	sq := c.Sequential
	total := 0
	for _, split := range s.corp.splits {
		total += len(s.corp.cases[split])
	}
	r := &SequentialPlanReport{Alpha: sq.Alpha, TestAlpha: c.testAlpha(), MinRounds: sq.MinRounds, MaxRounds: sq.MaxRounds,
		RunsPerRound: len(c.profileNames()) * total, Alternative: sq.Plan, Gates: []GatePlan{}}
	r.WorstCaseRuns = r.RunsPerRound * len(s.cands) * sq.MaxRounds
	p.Sequential = r
	if sq.Plan == nil {
		p.Warnings = append(p.Warnings, `state an alternative to plan for (sequential.plan, e.g. {"baseline": 0.5, "candidate": 0.7}) to see the expected spend`)
		return nil
	}
	for i, k := range c.Objectives.Constraints {
		if !c.sequentialGate(k) {
			continue
		}
		if k.Test != TestSign {
			p.Warnings = append(p.Warnings, fmt.Sprintf("objectives.constraints[%d]: the %s test has no spend plan; its worst case is %d rounds", i, k.Test, sq.MaxRounds))
			continue
		}
		n := len(s.corp.cases[k.Split])
		base, cand := make([]float64, n), make([]float64, n)
		for j := range base {
			base[j], cand[j] = sq.Plan.Baseline, sq.Plan.Candidate
		}
		pl, err := stats.PlanSignTest(c.signOptions(k, n), base, cand, stats.PlanOptions{})
		if err != nil {
			return fmt.Errorf("experiment: objectives.constraints[%d]: plan: %w", i, err)
		}
		r.Gates = append(r.Gates, GatePlan{Constraint: i, Split: k.Split, Cases: n, Campaigns: pl.Campaigns,
			Crossed: pl.Crossed, Futile: pl.Futile, Capped: pl.Capped, ExpectedPairs: pl.MeanPairs, MaxPairs: pl.MaxPairs,
			ExpectedRounds: pl.MeanPairs / float64(n), FixedPairs: pl.FixedPairs, FixedPower: pl.FixedPower})
	}
	return nil
}

// writeText prints the sequential plan.
func (r *SequentialPlanReport) writeText(w io.Writer, variants int) {
	fmt.Fprintf(w, "sequential: alpha %g over %d variants (each test at %.3g, threshold 1/α = %.4g), rounds %d to %d, %d runs per candidate per round\n",
		r.Alpha, variants, r.TestAlpha, 1/r.TestAlpha, r.MinRounds, r.MaxRounds, r.RunsPerRound)
	fmt.Fprintf(w, "worst case: %d runs (every candidate, %d rounds)\n", r.WorstCaseRuns, r.MaxRounds)
	for _, g := range r.Gates {
		fmt.Fprintf(w, "constraint %d (%s, %d cases) if every case passes %.3g under the baseline and %.3g under a variant, from %d simulated campaigns:\n",
			g.Constraint, g.Split, g.Cases, r.Alternative.Baseline, r.Alternative.Candidate, g.Campaigns)
		rounds := g.ExpectedRounds
		upper := min(rounds+1, float64(r.MaxRounds))
		fmt.Fprintf(w, "  decides after %.1f of at most %d pairs on average: %.3g to %.3g rounds of at most %d (a round runs whole)\n",
			g.ExpectedPairs, g.MaxPairs, rounds, upper, r.MaxRounds)
		if variants == 1 {
			fmt.Fprintf(w, "  expected spend: %.0f to %.0f runs of at most %d\n", 2*rounds*float64(r.RunsPerRound), 2*upper*float64(r.RunsPerRound), r.WorstCaseRuns)
		} else {
			fmt.Fprintf(w, "  expected spend per variant: %.0f to %.0f runs of its own; the baseline runs until the last variant stops\n",
				rounds*float64(r.RunsPerRound), upper*float64(r.RunsPerRound))
		}
		fmt.Fprintf(w, "  crosses (promotes) %.1f%%, futile %.1f%%, capped %.1f%%\n", 100*g.Crossed, 100*g.Futile, 100*g.Capped)
		if g.FixedPairs > 0 {
			fmt.Fprintf(w, "  a fixed-size exact sign test of equal power needs %d pairs (power %.1f%%)\n", g.FixedPairs, 100*g.FixedPower)
		}
	}
}
