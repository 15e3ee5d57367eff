package experiment

import (
	"context"
	"slices"
)

// RoundProgress reports a finished round of a sequential campaign: every
// sequential gate after it, and the variants that run the next one.
type RoundProgress struct {
	Round     int
	MaxRounds int
	Gates     []SeqGateState
	Active    []string
}

// executeRounds runs a sequential campaign: round after round, the
// baseline and the variants still running run every case once; then
// every gate observes the round, and the journal records the gates'
// states. A resumed experiment continues from the last journaled round
// (the same e-processes), runs what is missing of the next, and goes on.
func (s *state) executeRounds(ctx context.Context, m *Manifest, plan []plannedUnit, trees map[string]*tree) (*Result, error) {
	eng, err := newSeqEngine(&s.camp, m.Candidates, caseIDs(m.Splits))
	if err != nil {
		return s.end(ctx, m, StatusFailed, err)
	}
	if last := s.done.lastRound; last != nil {
		if err := eng.resume(*last); err != nil {
			return s.end(ctx, m, StatusFailed, err)
		}
	}
	if s.invalid[BaselineID] != "" {
		return s.end(ctx, m, "", nil) // nothing to pair with: every gate fails
	}
	byRound := map[int][]plannedUnit{}
	for _, u := range plan {
		byRound[u.key.Repetition] = append(byRound[u.key.Repetition], u)
	}
	for r := eng.round + 1; r <= s.camp.Sequential.MaxRounds; r++ {
		active := eng.activeCandidates()
		if len(active) == 0 {
			break
		}
		var todo []plannedUnit
		for _, u := range byRound[r] {
			_, done := s.done.units[u.id]
			if done || (u.cand.ID != BaselineID && !slices.Contains(active, u.cand.ID)) {
				continue
			}
			todo = append(todo, u)
		}
		if err := s.runUnits(ctx, todo, trees, len(plan)); err != nil {
			return s.end(ctx, m, StatusFailed, err)
		}
		switch {
		case ctx.Err() != nil:
			return s.end(ctx, m, StatusAborted, context.Cause(ctx))
		case s.stopErr != nil:
			return s.end(ctx, m, StatusFailed, s.stopErr)
		}
		s.mu.Lock()
		idx := indexSamples(newEvidence(s.runsRoot, s.units))
		s.mu.Unlock()
		rec, err := eng.observe(r, idx)
		if err != nil {
			return s.end(ctx, m, StatusFailed, err)
		}
		if err := s.journal.append(journalEntry{Kind: "round", Unit: "", Round: &rec, WallTimeMs: s.activeMs()}); err != nil {
			return s.end(ctx, m, StatusFailed, err)
		}
		s.progress(Progress{Done: s.finished, Total: len(plan), Round: &RoundProgress{Round: r, MaxRounds: s.camp.Sequential.MaxRounds, Gates: rec.Gates, Active: rec.Active}})
	}
	return s.end(ctx, m, "", nil)
}
