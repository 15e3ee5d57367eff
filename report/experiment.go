package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/luxeval/lux/compare"
)

// ExperimentReport is an experiment's report in the terms this package
// draws. The command line fills it from package experiment's report
// (report stays below experiment, which drives the orchestrator, in the
// import graph); the effects are experiment's, computed by package
// compare, and are drawn as they are.
type ExperimentReport struct {
	Dir, ExperimentID, Status string
	// Outcome is promote, retain, reject, inconclusive, incomplete or
	// error; Sentence
	// the decision in one sentence.
	Outcome, Sentence, Error, Champion string
	Verdicts                           []string // one line per candidate
	Gates                              []ExperimentGate
	// Effects are grouped by candidate, profile and split: one forest plot each.
	Effects []EffectGroup
	// Spend is each resource spent against its budget.
	Spend     []SpendRow
	Reproduce []string
	// Baseline is the baseline's candidate id; Runs the runs the ledger
	// recorded, which the page groups by case with links to them.
	Baseline string
	Runs     []ExperimentRun
	// Sequential are the sequential gates over rounds: one chart each.
	Sequential []SeqSeries
	// Lineage, for the held-out experiment of a search (lux optimize), is
	// the search's candidates, a line each: parent → child with the train
	// gain of the step.
	Lineage []string
	// Agreement, for a grader experiment, is how each candidate's
	// gradings agree with the labels, a line each (candidate and split,
	// then indented subjects).
	Agreement []string
}

// ExperimentGate is one constraint checked for one candidate.
type ExperimentGate struct {
	Candidate string
	Text      string // the constraint with its value, interval and any note
	Passed    bool
	// Inconclusive: failed with too few units for any result to pass;
	// drawn as undecided, not failed.
	Inconclusive bool
	// Undecided says why an inconclusive gate is undecided; empty means
	// too few units.
	Undecided string
}

// EffectGroup is the effects of one candidate against the baseline on one
// profile and split.
type EffectGroup struct {
	Candidate, Profile, Split string
	Effects                   []compare.Effect
}

// SpendRow is one resource: what was spent and the budget.
type SpendRow struct {
	What, Spent, Budget string
}

// ExperimentPage is the page of an experiment.
type ExperimentPage struct {
	ExperimentReport
	Forests []*ForestPlot
	// EffectCaveats are the effects' warnings, each said once per
	// candidate, profile and split with the metrics it concerns.
	EffectCaveats []string
	// Cases are the runs by case; FlipList the cases whose verdict under a
	// candidate differs from the baseline's, the surest first; Pairs the
	// paired views a static page embeds (EmbedPairs).
	Cases     []ExperimentCase
	FlipList  []ExperimentFlip
	Pairs     []*PairPage
	PairsNote string
	// Live, on a served page of an experiment still running, refreshes it
	// as units finish.
	Live      *Live
	SeqCharts []*SeqChart
}

// Experiment builds the page of an experiment's report.
func Experiment(r ExperimentReport) *ExperimentPage {
	p := &ExperimentPage{ExperimentReport: r}
	for i, g := range r.Effects {
		f := effectsForest(g.Effects)
		f.ID = fmt.Sprintf("forest-%d", i)
		where := g.Split
		if g.Profile != "" {
			where = g.Profile + ", " + g.Split
		}
		f.Title = fmt.Sprintf("%s against the baseline (%s)", g.Candidate, where)
		p.Forests = append(p.Forests, f)
		p.EffectCaveats = append(p.EffectCaveats, effectCaveats(g.Candidate+" ("+where+")", g.Effects)...)
	}
	experimentCases(p)
	for i, s := range r.Sequential {
		p.SeqCharts = append(p.SeqCharts, seqChart(fmt.Sprintf("seq-%d", i), s))
	}
	return p
}

// effectCaveats are the warnings of one group's effects, each once:
// "v (default, validation), pass rate, tool calls: few clusters: …".
func effectCaveats(group string, effects []compare.Effect) []string {
	var order []string
	metrics := map[string][]string{}
	for _, e := range effects {
		for _, w := range e.Warnings {
			if _, ok := metrics[w.Message]; !ok {
				order = append(order, w.Message)
			}
			if l := compare.MetricLabel(e.Metric); !slices.Contains(metrics[w.Message], l) {
				metrics[w.Message] = append(metrics[w.Message], l)
			}
		}
	}
	out := make([]string, 0, len(order))
	for _, m := range order {
		out = append(out, group+", "+strings.Join(metrics[m], ", ")+": "+m)
	}
	return out
}

func (p *ExperimentPage) title() string {
	return "lux experiment " + p.ExperimentID + ": " + strings.TrimSpace(p.Outcome)
}
