package optimize

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/luxeval/lux/experiment"
)

// Step is one candidate of a search's lineage: its parent, why it was
// proposed, and its train pass rate against its parent's.
type Step struct {
	Candidate string  `json:"candidate"`
	Parent    string  `json:"parent"`
	Call      int     `json:"call"`
	Rationale string  `json:"rationale,omitempty"`
	Train     float64 `json:"train"` // mean train pass rate over cases
	Gain      float64 `json:"gain"`  // Train minus the parent's
	Evaluated bool    `json:"evaluated"`
}

// Lineage reads the steps of a search's journal, in the order proposed.
func Lineage(entries []Entry) []Step {
	train := map[string]float64{}
	evaluated := map[string]bool{}
	for _, e := range entries {
		if e.Kind == "evaluation" {
			train[e.Candidate], evaluated[e.Candidate] = e.Mean, true
		}
	}
	var out []Step
	for _, e := range entries {
		if e.Kind == "proposal" && e.Candidate != "" {
			st := Step{Candidate: e.Candidate, Parent: e.Parent, Call: e.Call, Rationale: e.Rationale, Train: train[e.Candidate], Evaluated: evaluated[e.Candidate]}
			if st.Evaluated && evaluated[e.Parent] {
				st.Gain = st.Train - train[e.Parent]
			}
			out = append(out, st)
		}
	}
	return out
}

// LineageLines are the lineage as text, a line per step:
// "baseline → c1  train 0.250 → 1.000 (+0.750)  rationale".
func LineageLines(entries []Entry) []string {
	train := map[string]float64{}
	for _, e := range entries {
		if e.Kind == "evaluation" {
			train[e.Candidate] = e.Mean
		}
	}
	var out []string
	for _, st := range Lineage(entries) {
		if !st.Evaluated {
			out = append(out, fmt.Sprintf("%s → %s  not evaluated", st.Parent, st.Candidate))
			continue
		}
		line := fmt.Sprintf("%s → %s  train pass rate %.3f → %.3f (%+.3f)", st.Parent, st.Candidate, train[st.Parent], st.Train, st.Gain)
		if r := strings.TrimSpace(st.Rationale); r != "" {
			if len(r) > 100 {
				r = r[:100] + "…"
			}
			line += "  " + strings.ReplaceAll(r, "\n", " ")
		}
		out = append(out, line)
	}
	return out
}

// finalists are the frontier candidates other than the baseline, best
// train mean first, at most TopK.
func (s *search) finalists() []*cand {
	var out []*cand
	for _, c := range frontier(s.cands) {
		if c.ID != experiment.BaselineID {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b *cand) int {
		return cmp.Or(cmp.Compare(b.mean, a.mean), cmp.Compare(idOrder(a.ID), idOrder(b.ID)))
	})
	return out[:min(len(out), s.opts.TopK)]
}

// finalCampaign is the campaign itself with the finalists as its
// variants: what decides on validation and test.
func (s *search) finalCampaign(ids []string) *experiment.Campaign {
	fc := *s.camp
	base := s.cands[0]
	fc.Variants, fc.Optimizer = nil, nil
	if !usesTrain(s.camp) { // the search measured it already
		fc.Splits.Train = nil
	}
	for _, id := range ids {
		c := s.byID(id)
		files := map[string]string{}
		for k, v := range c.Files {
			if base.Files[k] != v {
				files[k] = v
			}
		}
		fc.Variants = append(fc.Variants, experiment.Variant{ID: c.ID, Name: firstLine(c.Rationale), Files: files})
	}
	fc.Budget.MaxCandidates = max(fc.Budget.MaxCandidates, 1+len(ids))
	fc.Meta = maps.Clone(s.camp.Meta)
	if fc.Meta == nil {
		fc.Meta = map[string]any{}
	}
	fc.Meta[MetaSearch] = filepath.Base(s.dir)
	return &fc
}

// usesTrain reports whether a constraint or objective of c is on the
// train split.
func usesTrain(c *experiment.Campaign) bool {
	for _, k := range c.Objectives.Constraints {
		if k.Split == experiment.SplitTrain {
			return true
		}
	}
	for _, m := range c.Objectives.Minimize {
		if m.Split == experiment.SplitTrain {
			return true
		}
	}
	return false
}

// MetaSearch is the campaign meta key naming, in a held-out experiment's
// campaign, the search ledger (its directory's name under
// <runsRoot>/.optimize) it decides for.
const MetaSearch = "luxOptimizeSearch"

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// promote runs the held-out experiment of the finalists (or resumes it).
func (s *search) promote(ctx context.Context, reason string) (*Result, error) {
	entries, err := ReadJournal(s.dir)
	if err != nil {
		return nil, err
	}
	if reason == "" {
		reason = s.stopped
	}
	sp := s.spent
	res := &Result{Dir: s.dir, StopReason: reason, Lineage: Lineage(entries), Spent: Spent{
		ProposalCalls: sp.calls, ProposalTokens: sp.proposalTokens, ProposalCostUSD: sp.proposalCost,
		TrainRuns: sp.runs, Tokens: sp.tokens, CostUSD: sp.cost,
	}}
	if s.promoting == nil {
		for _, c := range s.finalists() {
			s.promoting = append(s.promoting, c.ID)
		}
		if len(s.promoting) == 0 {
			s.progress("no candidate to promote: the baseline is retained")
			return res, nil
		}
		if err := s.add(Entry{Kind: "promoting", Finalists: s.promoting, Error: reason}); err != nil {
			return nil, err
		}
	}
	fc := s.finalCampaign(s.promoting)
	opts := experiment.Options{RunsRoot: s.opts.RunsRoot, Concurrency: s.opts.Concurrency, Progress: s.opts.Units, Force: s.opts.Force}
	if s.final != nil {
		if res.Final, err = readResult(ctx, filepath.Join(s.dir, filepath.FromSlash(s.final.Ledger))); err != nil {
			return nil, err
		}
		return res, nil
	}
	s.progress("held-out experiment of %s on validation and test", strings.Join(s.promoting, ", "))
	var final *experiment.Result
	switch dir := s.startedFinal(); {
	case dir == "":
		final, err = experiment.Run(ctx, s.reg, fc, opts)
	case ended(dir):
		final, err = readResult(ctx, dir)
	default:
		final, err = experiment.Resume(ctx, s.reg, dir, fc, opts)
	}
	if err != nil && !budgetEnded(final) {
		return nil, err
	}
	if final.Manifest.Status == experiment.StatusAborted {
		return nil, errAborted
	}
	e := Entry{Kind: "final", Ledger: rel(s.dir, final.Dir), Finalists: s.promoting, Error: final.Manifest.Error}
	if final.Evaluation != nil && final.Decision != nil {
		e.Decision, e.Champion = final.Sentence(), final.Decision.Champion
	}
	if err := s.add(e); err != nil {
		return nil, err
	}
	res.Final = final
	return res, nil
}

// readResult reads the result of a finished experiment.
func readResult(ctx context.Context, dir string) (*experiment.Result, error) {
	l, err := experiment.Open(dir)
	if err != nil {
		return nil, err
	}
	ev, err := l.Evaluate(ctx)
	if err != nil {
		return nil, err
	}
	return &experiment.Result{Dir: l.Dir, Manifest: l.Manifest, Evaluation: ev}, nil
}

// ended reports whether the experiment of ledger dir finished (passed or
// failed: nothing to resume).
func ended(dir string) bool {
	m, err := experiment.ReadManifest(dir)
	return err == nil && m.EndedAt != nil && m.Status != experiment.StatusAborted
}

// startedFinal is the held-out experiment a killed search started, if
// any: the newest ledger whose campaign names this search.
func (s *search) startedFinal() string {
	dirs, _ := experiment.List(s.opts.RunsRoot)
	for _, d := range slices.Backward(dirs) {
		l, err := experiment.Open(d)
		if err == nil && l.Campaign != nil && l.Campaign.Meta[MetaSearch] == filepath.Base(s.dir) {
			return d
		}
	}
	return ""
}

// SearchOf returns the search ledger an experiment's ledger decided for
// (its campaign's MetaSearch), or "" when it is not a search's.
func SearchOf(experimentDir string) string {
	l, err := experiment.Open(experimentDir)
	if err != nil || l.Campaign == nil {
		return ""
	}
	name, _ := l.Campaign.Meta[MetaSearch].(string)
	if name == "" || strings.ContainsAny(name, `/\`) {
		return ""
	}
	return filepath.Join(l.RunsRoot, LedgerDir, name)
}

// WriteLineageMarkdown writes the lineage of the search ledger dir as a
// Markdown section: each candidate's parent, train gain and rationale, and
// the proposal spend.
func WriteLineageMarkdown(w io.Writer, dir string) error {
	entries, err := ReadJournal(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n## Search lineage\n\nCandidates proposed on the train split (the optimizer saw no validation or test case), parent → child with the mean train pass rate over cases; search ledger `%s`.\n\n", dir)
	lines := LineageLines(entries)
	if len(lines) == 0 {
		fmt.Fprintln(w, "No candidate was proposed.")
	}
	for _, l := range lines {
		fmt.Fprintf(w, "- %s\n", l)
	}
	calls, failed, tokens, cost := 0, 0, int64(0), 0.0
	for _, e := range entries {
		if e.Kind == "proposal" {
			calls = max(calls, e.Call)
			tokens += e.Usage.Total()
			cost += e.CostUSD
			if e.Error != "" && e.Candidate == "" {
				failed++
			}
		}
	}
	_, err = fmt.Fprintf(w, "\nProposals: %d calls, %d proposals failed or refused; %d tokens, $%.4f (counted in the search budget, apart from the runs).\n", calls, failed, tokens, cost)
	return err
}
