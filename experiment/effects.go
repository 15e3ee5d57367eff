package experiment

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/record"
)

// Effect is the paired effect of a candidate against the baseline on one
// metric, for one profile and split, as package compare computes it for
// two suites: cases paired by id, repetitions reduced to per-case means,
// clusters as the independent unit.
type Effect struct {
	Candidate string `json:"candidate"`
	Profile   string `json:"profile"`
	Split     string `json:"split"`
	Metric    string `json:"metric"`
	// Baseline and Value are the means of the per-case means over the
	// paired cases; Delta = Value − Baseline is the estimate.
	Baseline    float64           `json:"baseline"`
	Value       float64           `json:"value"`
	Delta       float64           `json:"delta"`
	Cases       int               `json:"cases"`
	Dropped     int               `json:"dropped"`
	Interval    *compare.Interval `json:"interval"`
	Significant bool              `json:"significant"`
	Outcome     string            `json:"outcome"` // better, worse or "" (see compare.Effect)
	// NoChange is true when every paired case has the same value on both
	// sides, as package compare finds it from the paired values (never from
	// a zero-width interval, which clusters whose changes cancel also
	// give): a report names the metric in one line instead of an interval
	// row. The interval is still given, for the gates.
	NoChange    bool              `json:"noChange"`
	Unavailable string            `json:"unavailable,omitempty"`
	Warnings    []compare.Warning `json:"warnings"`
	comparison  *compare.SuiteComparison
}

// arm is the units of one candidate, profile and split.
type arm struct{ candidate, profile, split string }

// evidence is the units of an experiment grouped by arm.
type evidence struct {
	runsRoot string
	samples  map[arm][]record.Sample
	units    []*Unit
}

func newEvidence(runsRoot string, units []*Unit) *evidence {
	ev := &evidence{runsRoot: runsRoot, samples: map[arm][]record.Sample{}, units: units}
	for _, u := range units {
		k := arm{u.Candidate, u.Profile, u.Split}
		ev.samples[k] = append(ev.samples[k], u.Sample)
	}
	return ev
}

// has reports whether a unit of the arm has metric.
func (ev *evidence) has(k arm, metric string) bool {
	for _, s := range ev.samples[k] {
		if _, ok := s.Metrics[metric]; ok {
			return true
		}
	}
	return false
}

// suite is the arm's units as a suite record package compare reads.
func (ev *evidence) suite(k arm) *record.Suite {
	samples := ev.samples[k]
	if samples == nil {
		samples = []record.Sample{}
	}
	return &record.Suite{Dir: ev.runsRoot, Summary: &record.SuiteSummary{
		SchemaVersion: 1, SuiteID: k.candidate + "/" + k.profile + "/" + k.split, Status: record.SuitePassed, Samples: samples,
	}}
}

// effectMetrics are the metrics effects are reported on.
func effectMetrics(c *Campaign) []string {
	out := slices.Clone(EffectMetrics)
	if c.Grader != nil {
		out = slices.Clone(GraderMetrics)
	}
	for _, k := range c.Objectives.Constraints {
		if k.Metric != MetricSubjectBytes && !slices.Contains(out, k.Metric) {
			out = append(out, k.Metric)
		}
	}
	return out
}

// effectConfidence is the confidence an effect is computed with: that of
// the relativeTo constraint on the same metric and split (and profile, or
// none), else a 95 % Student t interval.
func effectConfidence(c *Campaign, metric, profile, split string) *Confidence {
	for _, k := range c.Objectives.Constraints {
		if k.RelativeTo != "" && k.Metric == metric && k.Split == split && (k.Profile == "" || k.Profile == profile) && k.Confidence != nil {
			return k.Confidence
		}
	}
	return nil
}

// computeEffects returns the paired effect of every candidate but the
// baseline, per profile, split and metric, in campaign order.
func computeEffects(ctx context.Context, c *Campaign, cands []CandidateRef, ev *evidence, splits []string) ([]Effect, error) {
	metrics := effectMetrics(c)
	var out []Effect
	for _, cand := range cands {
		if cand.ID == BaselineID || cand.Invalid != "" {
			continue
		}
		for _, profile := range c.profileNames() {
			for _, split := range splits {
				base, after := arm{BaselineID, profile, split}, arm{cand.ID, profile, split}
				if len(ev.samples[base]) == 0 || len(ev.samples[after]) == 0 {
					continue
				}
				// One comparison per distinct confidence.
				groups := map[string][]string{}
				var order []string
				confOf := map[string]*Confidence{}
				for _, m := range metrics {
					if c.Grader != nil && !ev.has(base, m) && !ev.has(after, m) {
						continue // a judge metric the labels do not give (no scores labelled, say)
					}
					cf := effectConfidence(c, m, profile, split)
					key := fmt.Sprintf("%+v", cf.config())
					if _, ok := groups[key]; !ok {
						order = append(order, key)
						confOf[key] = cf
					}
					groups[key] = append(groups[key], m)
				}
				byMetric := map[string]Effect{}
				for _, key := range order {
					cfg := confOf[key].config()
					names := make([]string, len(groups[key]))
					for i, m := range groups[key] {
						names[i] = compareName(m)
					}
					cmp, err := compare.SuiteRecords(ctx, ev.suite(base), ev.suite(after), compare.Options{
						Method: cfg.Method, Level: cfg.Level, Resamples: cfg.Resamples, Seed: cfg.Seed, Metrics: names,
					})
					if err != nil {
						return nil, fmt.Errorf("experiment: effects of %s (%s, %s): %w", cand.ID, profile, split, err)
					}
					if cmp.Counts.Paired == 0 {
						return nil, unpaired(cand.ID, profile, split, cmp)
					}
					for _, m := range groups[key] {
						e := effectOf(cand.ID, profile, split, m, cmp)
						honestInterval(&e)
						byMetric[m] = e
					}
				}
				for _, m := range metrics {
					if e, ok := byMetric[m]; ok {
						out = append(out, e)
					}
				}
			}
		}
	}
	return out, nil
}

// unpaired is the error of an arm none of whose cases pairs with the
// baseline's: there is nothing to measure an effect on, and keeping the
// baseline would claim the variant lost. It names why the cases were left
// out (the identity fields that differ), so the campaign can be fixed.
func unpaired(candidate, profile, split string, cmp *compare.SuiteComparison) error {
	why := []string{}
	if n := len(cmp.Mismatches); n > 0 {
		fields := map[string]bool{}
		var names []string
		for _, m := range cmp.Mismatches {
			for _, f := range m.Mismatches {
				if !fields[string(f.Field)] {
					fields[string(f.Field)] = true
					names = append(names, string(f.Field))
				}
			}
		}
		why = append(why, fmt.Sprintf("%d case(s) left out because their runs do not measure the same thing on both sides (%s differ)", n, strings.Join(names, ", ")))
	}
	if n := len(cmp.OnlyA) + len(cmp.OnlyB); n > 0 {
		why = append(why, fmt.Sprintf("%d case(s) ran on one side only", n))
	}
	if len(why) == 0 {
		why = append(why, "no case ran on both sides")
	}
	return fmt.Errorf("experiment: no case of candidate %s pairs with the baseline (%s, %s): %s; an experiment without paired cases cannot decide (a file the agent reads from the subject belongs to the subject, named through {{lux.subjectRoot}}; anything else that differs between the candidates' runs must not)",
		candidate, profile, split, strings.Join(why, "; "))
}

// effectOf picks metric's effect out of a comparison.
func effectOf(candidate, profile, split, metric string, cmp *compare.SuiteComparison) Effect {
	e := Effect{Candidate: candidate, Profile: profile, Split: split, Metric: metric, Warnings: []compare.Warning{}, comparison: cmp}
	name := compareName(metric)
	for _, ce := range cmp.Effects {
		if ce.Metric != name {
			continue
		}
		e.Baseline, e.Value, e.Delta, e.Cases, e.Dropped = ce.A, ce.B, ce.Delta, ce.Cases, ce.Dropped
		e.Interval, e.Significant, e.Outcome, e.Unavailable = ce.Interval, ce.Significant, ce.Outcome, ce.Unavailable
		e.NoChange = ce.NoChange
		e.Warnings = append(e.Warnings, ce.Warnings...)
	}
	if n := len(cmp.Mismatches); n > 0 {
		var fields []string
		for _, m := range cmp.Mismatches[0].Mismatches {
			fields = append(fields, string(m.Field))
		}
		e.Warnings = append(e.Warnings, compare.Warning{Code: "identity-mismatch",
			Message: fmt.Sprintf("%d case(s) left out: their runs do not measure the same thing on both sides (%s)", n, strings.Join(fields, ", "))})
	}
	if n := len(cmp.OnlyA) + len(cmp.OnlyB); n > 0 {
		e.Warnings = append(e.Warnings, compare.Warning{Code: compare.WarnUnmatchedCases,
			Message: fmt.Sprintf("%d case(s) ran on one side only", n)})
	}
	return e
}

// effectNotes are the lines a report gives beside the effects' intervals,
// per candidate, profile and split: one naming the metrics no paired case
// changed (they get no interval row), and each caveat once with the
// metrics it concerns.
func effectNotes(effects []Effect) []string {
	type group struct{ candidate, profile, split string }
	type caveat struct {
		g       group
		message string
	}
	var order []group
	same := map[group][]string{}
	var caveats []caveat
	metrics := map[caveat][]string{}
	for _, e := range effects {
		g := group{e.Candidate, e.Profile, e.Split}
		if _, ok := same[g]; !ok {
			order = append(order, g)
			same[g] = nil
		}
		if e.NoChange {
			same[g] = append(same[g], metricLabel(e.Metric))
		}
		for _, w := range e.Warnings {
			k := caveat{g, w.Message}
			if _, ok := metrics[k]; !ok {
				caveats = append(caveats, k)
			}
			if l := metricLabel(e.Metric); !slices.Contains(metrics[k], l) {
				metrics[k] = append(metrics[k], l)
			}
		}
	}
	var out []string
	for _, g := range order {
		if len(same[g]) > 0 {
			out = append(out, fmt.Sprintf("%s (%s): no change in any paired case (no interval row): %s", g.candidate, where(g.profile, g.split), strings.Join(same[g], ", ")))
		}
	}
	for _, k := range caveats {
		out = append(out, fmt.Sprintf("%s (%s), %s: %s", k.g.candidate, where(k.g.profile, k.g.split), strings.Join(metrics[k], ", "), k.message))
	}
	return out
}

// where is "profile, split", or the split alone without a profile.
func where(profile, split string) string {
	if profile == "" {
		return split
	}
	return profile + ", " + split
}

// findEffect returns the effect of candidate on metric for profile and split.
func findEffect(effects []Effect, candidate, profile, split, metric string) *Effect {
	for i := range effects {
		e := &effects[i]
		if e.Candidate == candidate && e.Profile == profile && e.Split == split && e.Metric == metric {
			return e
		}
	}
	return nil
}

// CompareMetric is the effect's metric as package compare names it
// (passRate for quality.passRate), whose labels and units a report uses.
func (e Effect) CompareMetric() string { return compareName(e.Metric) }

// IntervalText formats an effect as people read it in a report, naming
// its profile and split: "pass rate effect (default, validation) +0.18
// [+0.05, +0.31], t 95%, 24 clusters".
func (e Effect) IntervalText() string {
	s := fmt.Sprintf("%s effect (%s) %s", metricLabel(e.Metric), where(e.Profile, e.Split), signed(e.Delta))
	if e.Interval == nil {
		if e.Unavailable != "" {
			return s + " (no interval: " + e.Unavailable + ")"
		}
		return s
	}
	iv := e.Interval
	unit := "cases"
	if iv.Clustered {
		unit = "clusters"
	}
	return fmt.Sprintf("%s [%s, %s], %s %g%%, %d %s", s, signed(iv.Lower), signed(iv.Upper), iv.Method, 100*iv.Level, iv.Units, unit)
}

func signed(v float64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%+.3g", v)
}
