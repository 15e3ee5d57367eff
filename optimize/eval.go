package optimize

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/luxeval/lux/experiment"
	"github.com/luxeval/lux/harness"
	"github.com/luxeval/lux/record"
)

// subCampaignFile is the train campaign of one candidate, kept beside its
// ledger so that a resumed search resumes that experiment unchanged.
const subCampaignFile = "campaign.json"

// trainCampaign is the campaign that evaluates one candidate on the train
// split only: its tree as the subject, the train cases as the one split,
// at the search repetitions, within what the search may still spend.
func (s *search) trainCampaign(c *cand, tree string) *experiment.Campaign {
	sub := *s.camp
	sub.ID = s.camp.ID + "-" + c.ID
	sub.Subject = experiment.Subject{Root: tree, Mutable: s.camp.Subject.Mutable, Exclude: s.camp.Subject.Exclude, Validate: s.camp.Subject.Validate}
	sub.Splits = experiment.Splits{Validation: s.camp.Splits.Train}
	sub.Variants, sub.Sequential, sub.Optimizer, sub.Meta, sub.Path = nil, nil, nil, nil, ""
	sub.Objectives = experiment.Objectives{}
	sub.Repetitions = experiment.Repetitions{Promotion: max(1, s.camp.Repetitions.Search)}
	r := s.remaining()
	// What is left, at least a unit of each: a budget of zero would take
	// the experiment's default, not stop it.
	sub.Budget = experiment.Budget{MaxCandidates: 1, MaxRuns: max(r.Runs, 1), MaxTokens: max(r.Tokens, 1), MaxCostUSD: max(r.CostUSD, 1e-9)}
	return &sub
}

// evaluate runs c on the train split (or resumes, or reads, the
// experiment a killed search left) and records its per-case pass rates.
func (s *search) evaluate(ctx context.Context, c *cand) (Entry, error) {
	root := filepath.Join(s.dir, EvalsDir, c.ID)
	tree := filepath.Join(s.dir, TreesDir, c.ID)
	ledgers, err := experiment.List(root)
	if err != nil {
		return Entry{}, err
	}
	var res *experiment.Result
	opts := experiment.Options{RunsRoot: root, Concurrency: s.opts.Concurrency, Progress: s.opts.Units, Force: true}
	if len(ledgers) == 0 {
		sub := s.trainCampaign(c, tree)
		if err := os.RemoveAll(tree); err != nil {
			return Entry{}, fmt.Errorf("optimize: %w", err)
		}
		if err := experiment.Materialize(s.camp, c.Files, tree); err != nil {
			return Entry{}, err
		}
		if err := os.MkdirAll(root, 0o755); err != nil {
			return Entry{}, fmt.Errorf("optimize: %w", err)
		}
		if err := record.WriteJSON(filepath.Join(root, subCampaignFile), sub); err != nil {
			return Entry{}, fmt.Errorf("optimize: %w", err)
		}
		res, err = experiment.Run(ctx, s.reg, sub, opts)
		if err != nil && !budgetEnded(res) {
			return Entry{}, fmt.Errorf("optimize: evaluate %s on train: %w", c.ID, err)
		}
	} else {
		dir := ledgers[len(ledgers)-1]
		m, err := experiment.ReadManifest(dir)
		if err != nil {
			return Entry{}, err
		}
		if m.EndedAt == nil || m.Status == experiment.StatusAborted {
			var sub experiment.Campaign
			if err := record.ReadJSON(filepath.Join(root, subCampaignFile), &sub); err != nil {
				return Entry{}, fmt.Errorf("optimize: %w", err)
			}
			sub.Dir = s.camp.Dir
			if res, err = experiment.Resume(ctx, s.reg, dir, &sub, opts); err != nil && !budgetEnded(res) {
				return Entry{}, fmt.Errorf("optimize: resume the train evaluation of %s: %w", c.ID, err)
			}
		} else {
			res = &experiment.Result{Dir: dir, Manifest: m}
		}
	}
	if res.Manifest.Status == experiment.StatusAborted || ctx.Err() != nil {
		return Entry{}, errors.Join(errAborted, ctx.Err())
	}
	l, err := experiment.Open(res.Dir)
	if err != nil {
		return Entry{}, err
	}
	c.cases = caseRates(l)
	c.mean = mean(c.cases)
	c.evaluated, c.ledger = true, rel(s.dir, res.Dir)
	sp := l.Manifest.Spent
	e := Entry{Kind: "evaluation", Candidate: c.ID, Cases: c.cases, Mean: c.mean, Runs: sp.Runs, Tokens: sp.Tokens, CostUSD: sp.CostUSD, Ledger: rel(s.dir, res.Dir)}
	if l.Manifest.Status == experiment.StatusFailed && l.Manifest.Error != "" {
		e.Error = l.Manifest.Error
	}
	return e, nil
}

// budgetEnded reports whether a train experiment ended because the search
// budget it was given ran out: what ran is kept, and the search stops.
func budgetEnded(res *experiment.Result) bool {
	return res != nil && res.Manifest != nil && res.Manifest.Status == experiment.StatusFailed
}

var errAborted = errors.New("optimize: search cancelled (resume it with -resume)")

// caseRates are the pass rates of each "profile:case" over its train
// repetitions; a run without a verdict counts as not passed.
func caseRates(l *experiment.Ledger) map[string]float64 {
	pass, n := map[string]float64{}, map[string]float64{}
	for _, u := range l.Units {
		k := u.Profile + ":" + u.CaseID
		n[k]++
		if u.Error == "" && u.Sample.Passed != nil && *u.Sample.Passed {
			pass[k]++
		}
	}
	out := map[string]float64{}
	for k, v := range n {
		out[k] = pass[k] / v
	}
	return out
}

func mean(m map[string]float64) float64 {
	if len(m) == 0 {
		return 0
	}
	t := 0.0
	for _, v := range m {
		t += v
	}
	return t / float64(len(m))
}

// maxTrajectory bounds the trajectory of one observation.
const maxTrajectory = 4000

// observations reads c's train runs: verdict, failed assertions with
// their comments, and the trajectory, trimmed to its last maxTrajectory
// bytes.
func (s *search) observations(c *cand) ([]Observation, error) {
	if !c.evaluated {
		return nil, nil
	}
	l, err := experiment.Open(filepath.Join(s.dir, filepath.FromSlash(c.ledger)))
	if err != nil {
		return nil, err
	}
	var out []Observation
	for _, u := range l.Units {
		o := Observation{Profile: u.Profile, CaseID: u.CaseID, Repetition: u.Repetition, Verdict: string(record.VerdictError), Error: u.Error}
		runDir := filepath.Join(l.RunsRoot, filepath.FromSlash(u.RunDir))
		if m, g, err := record.ReadMetadata(runDir); err == nil {
			o.Verdict = string(record.RunVerdict(m, g))
			for _, a := range assertionsOf(g) {
				if !a.Passed {
					o.Failed = append(o.Failed, FailedAssertion{ID: a.ID, Type: a.Type, Comment: strings.TrimSpace(a.Comment + " " + a.Error)})
				}
			}
		}
		if evs, err := record.ReadEvents(filepath.Join(runDir, record.EventsFile)); err == nil {
			var b strings.Builder
			for _, ev := range evs {
				line, _ := json.Marshal(ev)
				b.Write(line)
				b.WriteByte('\n')
			}
			t := b.String()
			if len(t) > maxTrajectory {
				t = "[…earlier events trimmed]\n" + harness.Clamp(t[len(t)-maxTrajectory:], maxTrajectory)
			}
			o.Trajectory = t
		}
		out = append(out, o)
	}
	return out, nil
}

func rel(base, path string) string {
	if r, err := filepath.Rel(base, path); err == nil {
		return filepath.ToSlash(r)
	}
	return path
}

// assertionsOf is g's assertions; none when g is nil.
func assertionsOf(g *record.Grading) []record.AssertionOutcome {
	if g == nil {
		return nil
	}
	return g.Assertions
}
