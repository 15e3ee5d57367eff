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
// every gate observes the round (SeqRule), and the journal records the
// gates' states. A resumed experiment continues from the last journaled
// round (the same e-processes), runs what is missing of the next, and
// goes on. When the executor is a RoundsExecutor, the loop and the rule
// run there (remoteRounds); the units are run and recorded here either
// way.
func (s *state) executeRounds(ctx context.Context, m *Manifest, plan []plannedUnit, trees map[string]*tree) (*Result, error) {
	spec := newSeqRuleSpec(&s.camp, m.Candidates, m.Splits)
	rule, err := NewSeqRule(spec)
	if err != nil {
		return s.end(ctx, m, StatusFailed, err)
	}
	if last := s.done.lastRound; last != nil {
		if err := rule.Resume(*last); err != nil {
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
	if rx, ok := s.opts.Executor.(RoundsExecutor); ok && s.grader == nil {
		err = s.remoteRounds(ctx, rule, rx, spec, byRound, trees, len(plan))
	} else {
		err = s.localRounds(ctx, rule, byRound, trees, len(plan))
	}
	switch {
	case err != nil:
		return s.end(ctx, m, StatusFailed, err)
	case ctx.Err() != nil:
		return s.end(ctx, m, StatusAborted, context.Cause(ctx))
	case s.stopErr != nil:
		return s.end(ctx, m, StatusFailed, s.stopErr)
	}
	return s.end(ctx, m, "", nil)
}

// localRounds runs the round loop here: the rule observes each round's
// recorded units. It returns early, with no error, when ctx is cancelled
// or a budget stops the experiment.
func (s *state) localRounds(ctx context.Context, rule *SeqRule, byRound map[int][]plannedUnit, trees map[string]*tree, total int) error {
	for r := rule.Round() + 1; r <= rule.MaxRounds() && !rule.Done(); r++ {
		if err := s.runUnits(ctx, s.roundTodo(byRound[r], rule.Active()), trees, total); err != nil {
			return err
		}
		if ctx.Err() != nil || s.stopErr != nil {
			return nil
		}
		rec, err := rule.Observe(r, s.roundSamples(r))
		if err != nil {
			return err
		}
		if err := s.journalRecorded(rule, rec, total); err != nil {
			return err
		}
	}
	return nil
}

// roundTodo are the units of a round still to run: the baseline's and
// the active variants', not recorded yet.
func (s *state) roundTodo(units []plannedUnit, active []string) []plannedUnit {
	var todo []plannedUnit
	for _, u := range units {
		_, done := s.done.units[u.id]
		if done || (u.cand.ID != BaselineID && !slices.Contains(active, u.cand.ID)) {
			continue
		}
		todo = append(todo, u)
	}
	return todo
}
