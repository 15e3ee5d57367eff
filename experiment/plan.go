package experiment

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/stats"
)

// CampaignPlan is what a campaign would run, computed without starting
// any agent; its JSON form is `lux experiment -plan -json` (schema
// "lux.experiment-plan/v1").
type CampaignPlan struct {
	Schema      string      `json:"schema"`
	CampaignID  string      `json:"campaignId"`
	SubjectRoot string      `json:"subjectRoot"`
	Mutable     []string    `json:"mutable"` // the baseline's mutable files
	Candidates  []string    `json:"candidates"`
	Profiles    []string    `json:"profiles"`
	Splits      []SplitPlan `json:"splits"`
	Projected   Projected   `json:"projected"`
	Budget      Budget      `json:"budget"`
	FitsBudget  bool        `json:"fitsBudget"`
	// Decidable is false when a constraint cannot pass with the units its
	// split has, whatever the results: the campaign could never promote
	// anything. Run refuses it unless forced (Options.Force).
	Decidable   bool          `json:"decidable"`
	Undecidable []Undecidable `json:"undecidable"`
	Warnings    []string      `json:"warnings"`
	// Sequential is the spend of a sequential campaign: its worst case
	// and, under the alternative it states, its expected spend.
	Sequential *SequentialPlanReport `json:"sequential,omitempty"`
}

// Undecidable is a constraint its split has too few independent units to
// decide: with fewer than Need, not even the best result could pass it.
type Undecidable struct {
	Constraint int    `json:"constraint"` // index in objectives.constraints
	Metric     string `json:"metric"`
	Split      string `json:"split"`
	Units      int    `json:"units"` // the split's independent units
	// Need is the fewest units with which it could pass; 0 when no number
	// of units can (a bound the metric cannot reach).
	Need int    `json:"need"`
	Text string `json:"text"`
}

// SplitPlan is one split's cases.
type SplitPlan struct {
	Split    string   `json:"split"`
	Cases    []string `json:"cases"`
	Clusters int      `json:"clusters"` // independent units: clusters, a case without one counting alone
}

// Projected is what the experiment would spend, at most.
type Projected struct {
	Candidates int `json:"candidates"`
	Runs       int `json:"runs"`
	JudgeCalls int `json:"judgeCalls"`
}

// Plan validates the campaign against the registry (cases, profiles,
// drivers' experiment support and identities, the subject) and projects
// what it would run, whether that fits the budget, and warnings about
// constraints the campaign cannot decide well: too few independent units
// for a requested confidence, a bound no result could attain, a split
// smaller than the power needed to detect a constraint's effect.
func Plan(ctx context.Context, reg *lux.Registry, c *Campaign) (*CampaignPlan, error) {
	s, err := start(ctx, reg, c, Options{})
	if err != nil {
		return nil, err
	}
	d := s.camp
	p := &CampaignPlan{Schema: "lux.experiment-plan/v1", CampaignID: d.ID, SubjectRoot: s.sub.root, Mutable: sortedKeys(s.cands[0].Files),
		Profiles: d.profileNames(), Budget: d.Budget, Warnings: []string{}}
	for _, cand := range s.cands {
		p.Candidates = append(p.Candidates, cand.ID)
	}
	units := s.corp.units()
	judges := 0
	for _, split := range s.corp.splits {
		sp := SplitPlan{Split: split, Cases: []string{}, Clusters: units[split]}
		for _, lc := range s.corp.cases[split] {
			sp.Cases = append(sp.Cases, lc.CanonicalID())
			if lb := s.corp.labels[lc.ID]; lb != nil {
				judges += maxRubricCalls(lb.run) // a grader unit reserves the most calls its grading can make
			}
			for _, a := range lc.Assertions {
				if strings.Contains(a.Type, "rubric") || strings.Contains(a.Type, "judge") {
					judges++
				}
			}
		}
		p.Splits = append(p.Splits, sp)
	}
	perRun := len(s.cands) * len(p.Profiles) * d.Repetitions.Promotion
	p.Projected = Projected{Candidates: len(s.cands), JudgeCalls: judges * perRun}
	for _, sp := range p.Splits {
		p.Projected.Runs += perRun * len(sp.Cases)
	}
	p.FitsBudget = p.Projected.Candidates <= d.Budget.MaxCandidates && p.Projected.Runs <= d.Budget.MaxRuns && p.Projected.JudgeCalls <= d.Budget.MaxJudgeCalls
	if !p.FitsBudget {
		p.Warnings = append(p.Warnings, fmt.Sprintf("the projected %d runs and %d judge calls exceed the budget (maxRuns %d, maxJudgeCalls %d)",
			p.Projected.Runs, p.Projected.JudgeCalls, d.Budget.MaxRuns, d.Budget.MaxJudgeCalls))
	}
	p.Undecidable = undecidable(&d, units)
	p.Decidable = len(p.Undecidable) == 0
	for i, k := range d.Objectives.Constraints {
		p.Warnings = append(p.Warnings, constraintWarnings(i, k, units[k.Split])...)
	}
	if d.Sequential != nil {
		if err := s.planSequential(p); err != nil {
			return nil, err
		}
	}
	p.Warnings = append(p.Warnings, "tokens, cost and wall time are enforced while the experiment runs, not projected")
	return p, nil
}

// units counts the independent units of each split: its clusters, a case
// without one counting alone.
func (corp *corpus) units() map[string]int {
	out := map[string]int{}
	for _, split := range corp.splits {
		clusters := map[string]bool{}
		for _, lc := range corp.cases[split] {
			key := "\x00" + lc.CanonicalID()
			if lc.Cluster != "" {
				key = lc.Cluster
			}
			clusters[key] = true
		}
		out[split] = len(clusters)
	}
	return out
}

// undecidable lists the constraints of c (with defaults) that the units
// of their split cannot decide.
func undecidable(c *Campaign, units map[string]int) []Undecidable {
	out := []Undecidable{}
	for i, k := range c.Objectives.Constraints {
		if k.Confidence == nil || k.Metric == MetricSubjectBytes {
			continue
		}
		need, ok := neededUnits(k)
		n := units[k.Split]
		if ok && n >= need {
			continue
		}
		cfg := k.Confidence.config()
		what := metricLabel(k.Metric)
		if k.RelativeTo != "" {
			what += " effect"
		}
		var bounds []string
		num := func(v float64) string { return fmt.Sprintf("%v", v) }
		if k.Relative {
			num = percent
		}
		if k.Min != nil {
			bounds = append(bounds, "≥ "+num(*k.Min))
		}
		if k.Max != nil {
			bounds = append(bounds, "≤ "+num(*k.Max))
		}
		method := cfg.Method
		if method == "" {
			method = stats.StudentT
		}
		// cfg.Level is already stats.CheckLevel's (Confidence.config).
		at := fmt.Sprintf("objectives.constraints[%d] (%s %s, %s %g%%)", i, what, strings.Join(bounds, " and "), method, 100*cfg.Level)
		u := Undecidable{Constraint: i, Metric: k.Metric, Split: k.Split, Units: n}
		if !ok {
			u.Text = fmt.Sprintf("%s can never pass on split %s: not even the best result on %d units satisfies it (a bound the metric cannot reach at this level)", at, k.Split, maxNeededUnits)
		} else {
			u.Need = need
			u.Text = fmt.Sprintf("%s cannot be decided on split %s: it has %d independent units and needs at least %d; with fewer, not even %s could satisfy it (add cases to the split, lower the bound or the level, or force the run)",
				at, k.Split, n, need, bestResult(k))
		}
		out = append(out, u)
	}
	return out
}

// bestResult names the best result a constraint's metric allows.
func bestResult(k Constraint) string {
	if k.Metric != MetricPassRate || (k.Min != nil) == (k.Max != nil) {
		return "the best possible result"
	}
	switch {
	case k.RelativeTo != "" && k.Min != nil:
		return "every case going from fail to pass"
	case k.RelativeTo != "":
		return "every case going from pass to fail"
	case k.Min != nil:
		return "every case passing"
	}
	return "every case failing"
}

// constraintWarnings are the plan's caveats about constraint i.
func constraintWarnings(i int, k Constraint, n int) []string {
	if k.Confidence == nil || k.Metric == MetricSubjectBytes {
		return nil
	}
	at := fmt.Sprintf("objectives.constraints[%d] (%s on %s)", i, k.Metric, k.Split)
	cfg := k.Confidence.config()
	var out []string
	minUnits := max(cfg.MinUnits, stats.DefaultMinUnits)
	if n < minUnits {
		return append(out, fmt.Sprintf("%s: the split has %d independent units, below the %d a confidence interval needs", at, n, minUnits))
	}
	if n < stats.FewClusters {
		out = append(out, fmt.Sprintf("%s: only %d independent units; intervals over fewer than %d are wide and their coverage is approximate", at, n, stats.FewClusters))
	}
	if cfg.Method == stats.Hoeffding && k.RelativeTo == "" {
		hw := stats.HoeffdingHalfWidth(n, cfg.Level)
		if k.Min != nil && 1-hw < *k.Min {
			out = append(out, fmt.Sprintf("%s: cannot attain the lower bound %v even with every case passing (best %.3f with %d units)", at, *k.Min, 1-hw, n))
		}
		if k.Max != nil && hw > *k.Max {
			out = append(out, fmt.Sprintf("%s: cannot attain the upper bound %v even with every case failing (best %.3f with %d units)", at, *k.Max, hw, n))
		}
	}
	if k.RelativeTo != "" && k.Metric == MetricPassRate && k.Min != nil && *k.Min > 0 {
		// The largest variance of a paired pass-rate difference is 1.
		need := stats.SampleSize(*k.Min, 1, 1-cfg.Level, 0.8)
		if need > n && need != math.MaxInt {
			out = append(out, fmt.Sprintf("%s: detecting an effect of %v with 80%% power needs about %d independent units at worst; the split has %d", at, *k.Min, need, n))
		}
	}
	return out
}

// WriteText prints the plan for people.
func (p *CampaignPlan) WriteText(w io.Writer) {
	fmt.Fprintf(w, "campaign %s: %d candidates (%s), %d profiles (%s)\n", p.CampaignID, len(p.Candidates), strings.Join(p.Candidates, ", "),
		len(p.Profiles), strings.Join(p.Profiles, ", "))
	fmt.Fprintf(w, "subject %s: %s\n", p.SubjectRoot, strings.Join(p.Mutable, ", "))
	for _, s := range p.Splits {
		fmt.Fprintf(w, "split %s: %d cases, %d independent units\n", s.Split, len(s.Cases), s.Clusters)
	}
	fmt.Fprintf(w, "projected: %d runs, %d judge calls (budget: %d runs, %d judge calls)\n", p.Projected.Runs, p.Projected.JudgeCalls, p.Budget.MaxRuns, p.Budget.MaxJudgeCalls)
	if p.FitsBudget {
		fmt.Fprintln(w, "fits the budget")
	} else {
		fmt.Fprintln(w, "does NOT fit the budget")
	}
	if p.Sequential != nil {
		p.Sequential.writeText(w, len(p.Candidates)-1)
	}
	for _, u := range p.Undecidable {
		fmt.Fprintln(w, "cannot decide: "+u.Text)
	}
	for _, x := range p.Warnings {
		fmt.Fprintln(w, "warning: "+x)
	}
}
