package cli

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/experiment"
	"github.com/luxeval/lux/optimize"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/report"
)

// experimentPage turns an experiment's report into the terms of package
// report, which does not import experiment. The effects are experiment's
// as they are.
func experimentPage(r *experiment.Report) *report.ExperimentPage {
	in := report.ExperimentReport{
		Dir: r.Dir, ExperimentID: r.ExperimentID, Status: string(r.Status), Outcome: r.Outcome,
		Sentence: r.Sentence, Error: r.Error, Champion: r.Champion, Verdicts: r.Verdicts, Reproduce: r.Reproduce,
	}
	for _, g := range r.Gates {
		eg := report.ExperimentGate{Candidate: g.Candidate, Text: g.Text(), Passed: g.Passed, Inconclusive: g.Inconclusive}
		if g.Sequential != nil && g.Inconclusive {
			eg.Undecided = "no decision within the rounds allowed"
		}
		in.Gates = append(in.Gates, eg)
	}
	in.Sequential = sequentialSeries(r.Gates)
	index := map[[3]string]int{}
	for _, e := range r.Effects {
		key := [3]string{e.Candidate, e.Profile, e.Split}
		i, ok := index[key]
		if !ok {
			i = len(in.Effects)
			index[key] = i
			in.Effects = append(in.Effects, report.EffectGroup{Candidate: e.Candidate, Profile: e.Profile, Split: e.Split})
		}
		m := e.CompareMetric()
		in.Effects[i].Effects = append(in.Effects[i].Effects, compare.Effect{
			Metric: m, Unit: compare.MetricUnit(m), Better: compare.MetricBetter(m),
			A: e.Baseline, B: e.Value, Delta: e.Delta, Cases: e.Cases, Dropped: e.Dropped, Interval: e.Interval,
			Significant: e.Significant, Outcome: e.Outcome, NoChange: e.NoChange, Unavailable: e.Unavailable, Warnings: e.Warnings,
		})
	}
	s, b := r.Spent, r.Budget
	in.Spend = []report.SpendRow{
		{What: "runs", Spent: fmt.Sprint(s.Runs), Budget: fmt.Sprint(b.MaxRuns)},
		{What: "judge calls", Spent: s.JudgeCallsText(), Budget: fmt.Sprint(b.MaxJudgeCalls)},
		{What: "tokens", Spent: fmt.Sprint(s.Tokens), Budget: fmt.Sprint(b.MaxTokens)},
		{What: "cost", Spent: fmt.Sprintf("$%.4f", s.CostUSD), Budget: fmt.Sprintf("$%.2f", b.MaxCostUSD)},
		{What: "active time", Spent: (time.Duration(s.WallTimeMs) * time.Millisecond).String(), Budget: time.Duration(b.MaxWallTime).String()},
	}
	in.Agreement = experiment.AgreementLines(r.Agreement)
	in.Baseline, in.Runs = experiment.BaselineID, experimentRuns(r.Dir)
	if dir := optimize.SearchOf(r.Dir); dir != "" {
		if entries, err := optimize.ReadJournal(dir); err == nil {
			in.Lineage = optimize.LineageLines(entries)
		}
	}
	return report.Experiment(in)
}

// experimentRuns are the runs the ledger in dir recorded, for the page's
// links to them; none when it cannot be read again.
func experimentRuns(dir string) []report.ExperimentRun {
	l, err := experiment.Open(dir)
	if err != nil {
		return nil
	}
	out := make([]report.ExperimentRun, 0, len(l.Units))
	for _, u := range l.Units {
		v := u.Sample.Verdict()
		if u.Error != "" {
			v = record.VerdictFail // the harness failed the unit: it counts as not passed
		}
		r := report.ExperimentRun{Candidate: u.Candidate, Profile: u.Profile, Split: u.Split, CaseID: u.CaseID, Repetition: u.Repetition, Verdict: v}
		if u.RunDir != "" {
			r.Dir = filepath.Join(l.RunsRoot, filepath.FromSlash(u.RunDir))
		}
		out = append(out, r)
	}
	return out
}

// sequentialSeries are the sequential gates of an experiment, for its
// charts: a win rate on [0, 1] against ½, or an effect on [−1, 1]
// against the gate's bound.
func sequentialSeries(gates []experiment.Gate) []report.SeqSeries {
	var out []report.SeqSeries
	for _, g := range gates {
		s := g.Sequential
		if s == nil {
			continue
		}
		series := report.SeqSeries{Candidate: g.Candidate, Title: g.ConstraintText(), Test: s.Test, Stop: string(s.Stop), Alpha: s.Alpha,
			Of: s.Of, Min: 0, Max: 1, Ref: 0.5}
		if s.Of != "win rate" {
			series.Min, series.Ref = -1, 0
			if g.Min != nil {
				series.Ref = *g.Min
			} else if g.Max != nil {
				series.Ref = *g.Max
			}
		}
		for _, p := range s.History {
			series.Points = append(series.Points, report.SeqSeriesPoint{Round: p.Round, LogE: p.LogE, Lower: p.Lower, Upper: p.Upper, Estimate: p.Estimate})
		}
		out = append(out, series)
	}
	return out
}
