package optimize

import (
	"context"
	"fmt"
	"maps"
	"time"
)

// replay rebuilds the search's state from its journal.
func (s *search) replay(entries []Entry) error {
	for _, e := range entries {
		s.account(e)
		s.spent.elapsedBase = max(s.spent.elapsedBase, time.Duration(e.ElapsedMs)*time.Millisecond)
		switch e.Kind {
		case "proposal":
			if e.Candidate == "" {
				continue
			}
			parent := s.byID(e.Parent)
			if parent == nil {
				return fmt.Errorf("optimize: journal: candidate %s names an unknown parent %s", e.Candidate, e.Parent)
			}
			files := maps.Clone(parent.Files)
			maps.Copy(files, e.Files)
			s.cands = append(s.cands, &cand{ID: e.Candidate, Parent: e.Parent, Rationale: e.Rationale, Call: e.Call, Files: files})
		case "evaluation":
			c := s.byID(e.Candidate)
			if c == nil {
				return fmt.Errorf("optimize: journal: evaluation of unknown candidate %s", e.Candidate)
			}
			c.evaluated, c.cases, c.mean, c.ledger = true, e.Cases, e.Mean, e.Ledger
		case "promoting":
			s.promoting, s.stopped = e.Finalists, e.Error
		case "final":
			f := e
			s.final = &f
		}
	}
	return nil
}

// evaluatePending evaluates, in order, every candidate not yet evaluated.
func (s *search) evaluatePending(ctx context.Context) error {
	for _, c := range s.cands {
		if c.evaluated {
			continue
		}
		s.progress("evaluating %s on train", c.ID)
		e, err := s.evaluate(ctx, c)
		if err != nil {
			return err
		}
		s.account(e)
		if err := s.add(e); err != nil {
			return err
		}
		s.progress("%s: train pass rate %.3f over %d cases", c.ID, c.mean, len(c.cases))
	}
	return nil
}

// stale counts the proposal calls since the last one that improved a
// train case.
func (s *search) stale() int {
	improvedAt := 0
	for i, c := range s.cands {
		if c.Call > 0 && c.evaluated && improves(c, s.cands[:i]) {
			improvedAt = max(improvedAt, c.Call)
		}
	}
	return s.spent.calls - improvedAt
}
