package experiment

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/stats"
)

// Decision is the outcome of an experiment, a pure function of the
// campaign, its candidates and the units recorded: report and apply
// recompute it and refuse a ledger whose stored decision differs.
type Decision struct {
	// Outcome is "promote" (a variant is the champion), "retain" (the
	// baseline is), "reject" (no candidate satisfies every constraint) or
	// "inconclusive" (a candidate failed only constraints its split had too
	// few units to decide, so nothing can be said of it: no champion).
	Outcome  string   `json:"outcome"`
	Champion string   `json:"champion,omitempty"`
	Ranking  []string `json:"ranking"`  // best first
	Eligible []string `json:"eligible"` // candidates satisfying every constraint
	Gates    []Gate   `json:"gates"`    // every constraint, per candidate and profile
	// Rules is the version of the decision rules that decided (see
	// DecisionRules); 0 in ledgers decided before it was recorded.
	Rules int `json:"rules,omitempty"`
	// Sequential is the spend of a sequential campaign against its worst
	// case.
	Sequential *SequentialSpend `json:"sequential,omitempty"`
}

// DecisionRules is the version of the rules evaluate applies. Version 2:
// a gate failed with too few units is inconclusive, and a bounded effect
// or mean without spread gets the exact bound instead of a zero-width
// interval.
const DecisionRules = 2

// The outcomes.
const (
	Promote      = "promote"
	Retain       = "retain"
	Reject       = "reject"
	Inconclusive = "inconclusive"
)

// Gate is one constraint checked for one candidate and profile.
type Gate struct {
	Candidate  string   `json:"candidate"`
	Constraint int      `json:"constraint"` // index in objectives.constraints
	Metric     string   `json:"metric"`
	Profile    string   `json:"profile,omitempty"`
	Split      string   `json:"split"`
	RelativeTo string   `json:"relativeTo,omitempty"`
	Relative   bool     `json:"relative,omitempty"`
	Min        *float64 `json:"min,omitempty"`
	Max        *float64 `json:"max,omitempty"`
	// Value is the candidate's mean, or the effect's estimate (a
	// fraction of the baseline's mean when Relative).
	Value float64 `json:"value"`
	// Lower and Upper bound Value when the constraint asks for confidence.
	Lower  *float64     `json:"lower,omitempty"`
	Upper  *float64     `json:"upper,omitempty"`
	Method stats.Method `json:"method,omitempty"`
	Level  float64      `json:"level,omitempty"`
	Units  int          `json:"units"` // independent units behind Value
	// Need is the fewest independent units with which the constraint could
	// pass at all (see neededUnits); set when it asks for confidence.
	Need   int    `json:"need,omitempty"`
	Passed bool   `json:"passed"`
	Note   string `json:"note,omitempty"`
	// Inconclusive: the gate failed with fewer units than Need, where no
	// result could have passed; it is undecided, not failed on the merits.
	Inconclusive bool `json:"inconclusive,omitempty"`
	// Sequential is what the sequential test of the gate found, in a
	// sequential campaign: passed when it crossed its threshold, failed
	// when futile, undecided when it reached MaxRounds.
	Sequential *SequentialGate `json:"sequential,omitempty"`
}

// violation is how far the gate misses its bounds, normalized; +Inf when
// it could not be measured.
func (g Gate) violation() float64 {
	if g.Passed {
		return 0
	}
	if g.Note != "" && g.Units == 0 {
		return math.Inf(1)
	}
	lo, hi := g.Value, g.Value
	if g.Lower != nil {
		lo, hi = *g.Lower, *g.Upper
	}
	v := 0.0
	if g.Min != nil {
		v = max(v, math.Max(0, *g.Min-lo)/math.Max(1, math.Abs(*g.Min)))
	}
	if g.Max != nil {
		v = max(v, math.Max(0, hi-*g.Max)/math.Max(1, math.Abs(*g.Max)))
	}
	if v == 0 {
		return math.Inf(1) // failed for want of data
	}
	return v
}

// Evaluation is the effects and decision of a set of units.
type Evaluation struct {
	Effects  []Effect
	Decision *Decision
	// Agreement is, in a grader experiment, how each candidate's
	// gradings agree with the labels (see Agreement).
	Agreement []Agreement
}

// evaluate computes the effects and the decision from the units: the
// function every reader of a ledger applies.
func evaluate(ctx context.Context, c *Campaign, cands []CandidateRef, ev *evidence, splits []string, cases map[string][]CaseRef) (*Evaluation, error) {
	effects, err := computeEffects(ctx, c, cands, ev, splits)
	if err != nil {
		return nil, err
	}
	seq, spend, err := sequentialOf(c, cands, ev, cases)
	if err != nil {
		return nil, err
	}
	d := &Decision{Ranking: []string{}, Eligible: []string{}, Gates: []Gate{}, Rules: DecisionRules, Sequential: spend}
	type scored struct {
		ref        CandidateRef
		eligible   bool
		rejected   bool // failed a gate it had the units to decide
		undecided  bool // failed only gates it had too few units to decide
		violation  float64
		objectives []float64 // NaN where the candidate has no value
		passRate   float64
	}
	var all []scored
	for _, cand := range cands {
		s := scored{ref: cand, eligible: cand.Invalid == "", passRate: worstPassRate(c, cand.ID, ev)}
		for _, o := range c.Objectives.Minimize {
			v, ok := objectiveValue(c, cand, o, ev)
			if !ok {
				v = math.NaN()
			}
			s.objectives = append(s.objectives, v)
		}
		for i, k := range c.Objectives.Constraints {
			for _, profile := range c.constraintProfiles(k) {
				g := gateOf(c, cand, i, k, profile, ev, effects)
				if seq != nil && c.sequentialGate(k) && cand.ID != BaselineID && cand.Invalid == "" {
					g = seqGateOf(seq, g, k, profile)
				}
				d.Gates = append(d.Gates, g)
				if !g.Passed {
					s.eligible = false
					s.violation = max(s.violation, g.violation())
					s.undecided = s.undecided || g.Inconclusive
					s.rejected = s.rejected || !g.Inconclusive
				}
			}
		}
		if cand.Invalid != "" {
			s.violation = math.Inf(1)
			s.rejected = true
		}
		s.undecided = s.undecided && !s.rejected
		all = append(all, s)
	}
	slices.SortStableFunc(all, func(a, b scored) int {
		if a.eligible != b.eligible {
			if a.eligible {
				return -1
			}
			return 1
		}
		if !a.eligible && a.violation != b.violation {
			if a.violation < b.violation {
				return -1
			}
			return 1
		}
		for i := range c.Objectives.Minimize {
			va, vb := a.objectives[i], b.objectives[i]
			oka, okb := !math.IsNaN(va), !math.IsNaN(vb)
			switch {
			case oka && !okb:
				return -1
			case okb && !oka:
				return 1
			case oka && va != vb:
				if va < vb {
					return -1
				}
				return 1
			}
		}
		if pa, pb := a.passRate, b.passRate; pa != pb {
			if pa > pb {
				return -1
			}
			return 1
		}
		if a.ref.Bytes != b.ref.Bytes {
			if a.ref.Bytes < b.ref.Bytes {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ref.ID, b.ref.ID)
	})
	undecided := false
	for _, s := range all {
		d.Ranking = append(d.Ranking, s.ref.ID)
		if s.eligible {
			d.Eligible = append(d.Eligible, s.ref.ID)
		}
		undecided = undecided || s.undecided
	}
	// A candidate that could not be decided leaves the question open:
	// keeping the baseline (or rejecting everyone) would claim it lost.
	switch {
	case len(all) > 0 && all[0].eligible && all[0].ref.ID != BaselineID:
		d.Outcome, d.Champion = Promote, all[0].ref.ID
	case undecided:
		d.Outcome = Inconclusive
	case len(all) == 0 || !all[0].eligible:
		d.Outcome = Reject
	default:
		d.Outcome, d.Champion = Retain, BaselineID
	}
	out := &Evaluation{Effects: effects, Decision: d}
	if c.Grader != nil {
		out.Agreement = graderAgreement(cands, ev.units, splits)
	}
	return out, nil
}

// gateOf checks constraint k for candidate cand on profile. A gate that
// fails with fewer units than the constraint needs is inconclusive.
func gateOf(c *Campaign, cand CandidateRef, index int, k Constraint, profile string, ev *evidence, effects []Effect) Gate {
	g := measureGate(c, cand, index, k, profile, ev, effects)
	if k.Confidence == nil || k.Metric == MetricSubjectBytes || g.Passed || cand.Invalid != "" {
		return g
	}
	need, ok := neededUnits(k)
	if ok {
		g.Need = need
		g.Inconclusive = g.Units < need
	}
	return g
}

// measureGate measures constraint k for candidate cand on profile.
func measureGate(c *Campaign, cand CandidateRef, index int, k Constraint, profile string, ev *evidence, effects []Effect) Gate {
	g := Gate{Candidate: cand.ID, Constraint: index, Metric: k.Metric, Profile: profile, Split: k.Split,
		RelativeTo: k.RelativeTo, Relative: k.Relative, Min: k.Min, Max: k.Max}
	if k.Confidence != nil && k.Metric != MetricSubjectBytes {
		if need, ok := neededUnits(k); ok {
			g.Need = need
		}
	}
	if cand.Invalid != "" {
		g.Note = "the candidate is invalid: " + cand.Invalid
		return g
	}
	within := func(lo, hi float64) bool {
		return (k.Min == nil || lo >= *k.Min) && (k.Max == nil || hi <= *k.Max)
	}
	if k.Metric == MetricSubjectBytes {
		g.Value, g.Units = float64(cand.Bytes), 1
		g.Passed = within(g.Value, g.Value)
		return g
	}
	if k.RelativeTo != "" {
		if cand.ID == BaselineID {
			g.Passed, g.Note = true, "the baseline is what the effects are measured against"
			return g
		}
		e := findEffect(effects, cand.ID, profile, k.Split, k.Metric)
		if e == nil || e.Cases == 0 {
			g.Note = "no paired cases: nothing to measure the effect on"
			if e != nil && e.Unavailable != "" {
				g.Note = e.Unavailable
			}
			return g
		}
		scale := 1.0
		if k.Relative {
			if e.Baseline == 0 {
				g.Note = "the baseline's mean is 0, so a relative effect is undefined"
				return g
			}
			scale = math.Abs(e.Baseline)
		}
		g.Value, g.Units = e.Delta/scale, e.Cases
		if k.Confidence == nil {
			g.Passed = within(g.Value, g.Value)
			return g
		}
		if e.Interval == nil {
			g.Note = "no interval: " + e.Unavailable
			return g
		}
		lo, hi := e.Interval.Lower/scale, e.Interval.Upper/scale
		g.Lower, g.Upper, g.Method, g.Level, g.Units = &lo, &hi, e.Interval.Method, e.Interval.Level, e.Interval.Units
		g.Passed = within(lo, hi)
		return g
	}
	_, clusters, means, err := compare.CaseMeans(ev.samples[arm{cand.ID, profile, k.Split}], compareName(k.Metric))
	if err != nil {
		g.Note = err.Error()
		return g
	}
	if len(means) == 0 {
		g.Note = "no case has the metric in every run"
		return g
	}
	g.Value, g.Units = mean(means), len(means)
	if k.Confidence == nil {
		g.Passed = within(g.Value, g.Value)
		return g
	}
	if !slices.ContainsFunc(clusters, func(s string) bool { return s != "" }) {
		clusters = nil
	}
	cfg := k.Confidence.config()
	cfg.Bounded = unitIntervalMetric(k.Metric)
	iv, err := stats.Mean(means, clusters, cfg)
	if err != nil {
		g.Note = stats.Message(err)
		return g
	}
	lo, hi := iv.Lower, iv.Upper
	g.Lower, g.Upper, g.Method, g.Level, g.Units = &lo, &hi, iv.Method, iv.Level, iv.Units
	g.Passed = within(lo, hi)
	return g
}

// objectiveValue is the candidate's mean of the objective's metric over
// its profiles.
func objectiveValue(c *Campaign, cand CandidateRef, o Objective, ev *evidence) (float64, bool) {
	if o.Metric == MetricSubjectBytes {
		return float64(cand.Bytes), true
	}
	profiles := c.profileNames()
	if o.Profile != "" {
		profiles = []string{o.Profile}
	}
	var vals []float64
	for _, p := range profiles {
		_, _, means, err := compare.CaseMeans(ev.samples[arm{cand.ID, p, o.Split}], compareName(o.Metric))
		if err != nil || len(means) == 0 {
			return 0, false
		}
		vals = append(vals, mean(means))
	}
	return mean(vals), len(vals) > 0
}

// worstPassRate is the lowest validation pass rate over the profiles, −1
// when there is none.
func worstPassRate(c *Campaign, candidate string, ev *evidence) float64 {
	worst := math.Inf(1)
	for _, p := range c.profileNames() {
		_, _, means, err := compare.CaseMeans(ev.samples[arm{candidate, p, SplitValidation}], compare.MetricPassRate)
		if err != nil || len(means) == 0 {
			return -1
		}
		worst = math.Min(worst, mean(means))
	}
	if math.IsInf(worst, 1) {
		return -1
	}
	return worst
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// Sentence is the decision in one sentence, e.g. "promote variant-x: pass
// rate effect (default, validation) +0.5 [+0.2, +0.8], t 95%, 6 cases".
func (ev *Evaluation) Sentence() string {
	s := ev.sentence()
	if sp := ev.Decision.Sequential; sp != nil {
		s += "; " + sp.Text(ev.Decision.Outcome != Inconclusive)
	}
	return s
}

func (ev *Evaluation) sentence() string {
	d := ev.Decision
	switch d.Outcome {
	case Promote:
		s := "promote " + d.Champion
		if g := ev.sequentialGate(d.Champion); g != nil {
			s += ": " + g.ConstraintText() + ", " + g.Sequential.short()
		} else if e := ev.headline(d.Champion); e != nil {
			s += ": " + e.IntervalText()
		}
		return s
	case Retain:
		return "retain the baseline: no variant does better while satisfying every constraint"
	case Inconclusive:
		var short []string
		for _, id := range d.Ranking {
			if g := ev.firstInconclusive(id); g != nil && g.Sequential != nil {
				short = append(short, fmt.Sprintf("%s: %s undecided after %d rounds", id, g.Sequential.Test, g.Sequential.Rounds))
			} else if g != nil {
				short = append(short, fmt.Sprintf("%s: %d of the %d units needed on %s", id, g.Units, g.Need, g.Split))
			}
		}
		if d.Sequential != nil {
			return "inconclusive: no decision within the rounds allowed (" + strings.Join(short, "; ") + ")"
		}
		return "inconclusive: too few units to decide (" + strings.Join(short, "; ") + ")"
	}
	return "reject: no candidate satisfies every constraint"
}

// firstInconclusive is the first inconclusive gate of a candidate that
// failed only inconclusive gates; nil otherwise.
func (ev *Evaluation) firstInconclusive(candidate string) *Gate {
	var first *Gate
	for i := range ev.Decision.Gates {
		g := &ev.Decision.Gates[i]
		if g.Candidate != candidate || g.Passed {
			continue
		}
		if !g.Inconclusive {
			return nil
		}
		if first == nil {
			first = g
		}
	}
	return first
}

// headline is the pass-rate effect a candidate is judged by: the one a
// constraint bounds, else validation's first profile.
func (ev *Evaluation) headline(candidate string) *Effect {
	for _, g := range ev.Decision.Gates {
		if g.Candidate == candidate && g.RelativeTo != "" {
			if e := findEffect(ev.Effects, candidate, g.Profile, g.Split, g.Metric); e != nil {
				return e
			}
		}
	}
	for i := range ev.Effects {
		e := &ev.Effects[i]
		if e.Candidate == candidate && e.Metric == MetricPassRate {
			return e
		}
	}
	return nil
}

// Verdicts say, per candidate, why it was promoted, retained or rejected:
// one line each.
func (ev *Evaluation) Verdicts() []string {
	var out []string
	for _, id := range ev.Decision.Ranking {
		switch {
		case id == ev.Decision.Champion && id != BaselineID:
			out = append(out, ev.Sentence())
		case id == ev.Decision.Champion:
			out = append(out, "retain baseline")
		case ev.firstInconclusive(id) != nil:
			var undecided []string
			for _, g := range ev.Decision.Gates {
				if g.Candidate == id && !g.Passed {
					undecided = append(undecided, g.Text())
				}
			}
			out = append(out, "inconclusive "+id+": too few units: "+strings.Join(undecided, "; "))
		case id == BaselineID:
			continue
		default:
			var failed []string
			for _, g := range ev.Decision.Gates {
				if g.Candidate == id && !g.Passed {
					failed = append(failed, g.Text())
				}
			}
			line := "reject " + id
			if len(failed) > 0 {
				line += ": " + strings.Join(failed, "; ")
			} else if e := ev.headline(id); e != nil {
				line += ": ranked below " + ev.Decision.Ranking[0] + " (" + e.IntervalText() + ")"
			}
			out = append(out, line)
		}
	}
	return out
}

// Text describes the gate: "pass rate effect (default, validation) +0.5
// [+0.2, +0.8] t 95% needs ≥ 0: passed". A relative effect is in percent of
// the baseline's mean, its bounds too.
func (g Gate) Text() string {
	name := metricLabel(g.Metric)
	if g.RelativeTo != "" {
		name += " effect"
	}
	where := g.Split
	if g.Profile != "" {
		where = g.Profile + ", " + g.Split
	}
	s := fmt.Sprintf("%s (%s) %s", name, where, g.number(g.Value))
	if g.Lower != nil {
		s += fmt.Sprintf(" [%s, %s] %s %g%%", g.number(*g.Lower), g.number(*g.Upper), g.Method, 100*g.Level)
	}
	s += " needs " + g.bounds()
	if g.Sequential != nil {
		s += ": " + g.Sequential.text()
	} else if g.Inconclusive {
		s += fmt.Sprintf(" with at least %d units, has %d", g.Need, g.Units)
	}
	if g.Note != "" {
		s += " (" + g.Note + ")"
	}
	switch {
	case g.Passed:
		return s + ": passed"
	case g.Inconclusive && g.Sequential != nil:
		return s + ": undecided (" + string(g.Sequential.Stop) + ")"
	case g.Inconclusive:
		return s + ": undecided"
	}
	return s + ": failed"
}

// number formats a value of the gate: a relative effect in percent.
func (g Gate) number(v float64) string {
	if g.Relative {
		return percent(v)
	}
	return signed(v)
}

// bounds formats the gate's bounds: "≥ 0", "≤ +10%", "≥ 0.2 and ≤ 0.8".
func (g Gate) bounds() string {
	bound := func(v float64) string { return fmt.Sprintf("%v", v) }
	if g.Relative {
		bound = percent
	}
	var out []string
	if g.Min != nil {
		out = append(out, "≥ "+bound(*g.Min))
	}
	if g.Max != nil {
		out = append(out, "≤ "+bound(*g.Max))
	}
	return strings.Join(out, " and ")
}

// percent formats a fraction as a signed percentage: +0.1 → "+10%",
// 33.3 → "+3330%".
func percent(v float64) string {
	x := 100 * v
	switch {
	case x == 0:
		return "0%"
	case math.Abs(x) >= 1000:
		return fmt.Sprintf("%+.0f%%", x)
	}
	return fmt.Sprintf("%+.3g%%", x)
}
