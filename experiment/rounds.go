package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
)

// RoundsExecutor is an orchestrator.Executor (Options.Executor) that can
// also own a sequential campaign's round loop: where it runs the rounds
// (a Temporal workflow, say), it runs the stopping rule between them
// (SeqRule, the same code the experiment runs when it owns the loop) and
// decides which variants run each round. The experiment still plans and
// records every unit, writes the ledger and journals each round's record,
// which it takes from the executor. When Options.Executor implements it,
// a sequential agent campaign runs its rounds through it; otherwise the
// experiment runs the rule itself, between the rounds it sends to the
// executor run by run.
type RoundsExecutor interface {
	// StartRounds starts (or, for an experiment resumed, takes up again)
	// the round loop of the experiment start names.
	StartRounds(ctx context.Context, start RoundsStart) (Rounds, error)
}

// RoundsStart is what a round loop starts from.
type RoundsStart struct {
	// Experiment is the experiment's ID (its ledger directory's name).
	Experiment string `json:"experiment"`
	// Rule is the stopping rule's spec.
	Rule SeqRuleSpec `json:"rule"`
	// Last is the last round the journal records, nil before the first:
	// the loop goes on from it, with the same e-processes.
	Last *RoundRecord `json:"last,omitempty"`
}

// RoundUnit is a unit of a round: its run key (the PlannedRun.Key its
// run is executed under) and where its sample goes.
type RoundUnit struct {
	Key    string      `json:"key"`
	Sample RoundSample `json:"sample"`
}

// RoundOrder is the round loop's answer to a round asked for: the
// variants that run it. The runs of the round's units (the baseline's and
// theirs) are then executed by the executor under their keys.
type RoundOrder struct {
	Round  int      `json:"round"`
	Active []string `json:"active"`
}

// Rounds is a round loop in progress, seen from the experiment. Calls
// come in this order, round after round: Begin, the units' runs
// (Execute), End.
type Rounds interface {
	// Last is the last round the loop decided, nil before the first: it
	// may be one past the journal's when the experiment stopped after the
	// loop decided a round and before it journaled it.
	Last(ctx context.Context) (*RoundRecord, error)
	// Begin asks for round, with its units: the baseline's and every
	// valid variant's (the loop keeps those of the variants running).
	Begin(ctx context.Context, round int, units []RoundUnit) (*RoundOrder, error)
	// End says every unit of the round is recorded, with the samples
	// recorded (which the loop takes over what its runs returned), and
	// returns the round's record once the rule observed it.
	End(ctx context.Context, round int, recorded []RoundSample) (*RoundRecord, error)
	// Close releases what the loop holds in this process; the loop itself
	// goes on, for a resumed experiment to take up.
	Close() error
}

// remoteRounds runs the rounds of a sequential campaign through rx: the
// loop and the rule run where rx runs them, the units here, as in
// executeRounds; each round's record is the loop's, journaled here.
func (s *state) remoteRounds(ctx context.Context, rule *SeqRule, rx RoundsExecutor, spec SeqRuleSpec, byRound map[int][]plannedUnit, trees map[string]*tree, total int) error {
	rounds, err := rx.StartRounds(ctx, RoundsStart{Experiment: filepath.Base(s.dir), Rule: spec, Last: s.done.lastRound})
	if err != nil {
		return err
	}
	defer rounds.Close()
	// The loop may have decided a round the journal lacks.
	last, err := rounds.Last(ctx)
	if err != nil {
		return err
	}
	switch {
	case last == nil || last.Round == rule.Round():
	case last.Round == rule.Round()+1:
		if err := s.takeRound(rule, spec, *last, total); err != nil {
			return err
		}
	default:
		return fmt.Errorf("experiment: the round loop is at round %d, the journal at round %d", last.Round, rule.Round())
	}
	for r := rule.Round() + 1; r <= rule.MaxRounds() && !rule.Done(); r++ {
		var units []RoundUnit
		for _, u := range byRound[r] {
			if s.invalid[u.cand.ID] == "" {
				units = append(units, RoundUnit{Key: s.runKey(u.key), Sample: RoundSample{Candidate: u.cand.ID, Profile: u.key.Profile, Split: u.key.Split, CaseID: u.key.CaseID, Round: r}})
			}
		}
		order, err := rounds.Begin(ctx, r, units)
		if err != nil {
			return err
		}
		if want := rule.Active(); !slices.Equal(order.Active, want) {
			return fmt.Errorf("experiment: the round loop runs %v in round %d, the journal's rule %v", order.Active, r, want)
		}
		todo := s.roundTodo(byRound[r], order.Active)
		if err := s.runUnits(ctx, todo, trees, total); err != nil {
			return err
		}
		if ctx.Err() != nil || s.stopErr != nil {
			return nil // the caller ends the experiment
		}
		rec, err := rounds.End(ctx, r, s.roundSamples(r))
		if err != nil {
			return err
		}
		if err := s.takeRound(rule, spec, *rec, total); err != nil {
			return err
		}
	}
	return nil
}

// roundSamples are the recorded units of round r as the rule reads them.
func (s *state) roundSamples(r int) []RoundSample {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []RoundSample
	for _, u := range s.units {
		if u.Sample.Repetition == r {
			out = append(out, unitSample(u))
		}
	}
	return out
}

// takeRound takes a round's record the loop decided: it must be the
// record the rule gives on the round's recorded units (which is what a
// later open of the ledger checks the journal against); the rule resumes
// from it, and the journal records it.
func (s *state) takeRound(rule *SeqRule, spec SeqRuleSpec, rec RoundRecord, total int) error {
	if rec.Round != rule.Round()+1 {
		return fmt.Errorf("experiment: the round loop decided round %d after round %d", rec.Round, rule.Round())
	}
	check, err := NewSeqRule(spec)
	if err != nil {
		return err
	}
	if prev := rule.e.record(); rule.Round() > 0 {
		if err := check.Resume(prev); err != nil {
			return err
		}
	}
	want, err := check.Observe(rec.Round, s.roundSamples(rec.Round))
	if err != nil {
		return fmt.Errorf("experiment: the round loop decided round %d, which the recorded units do not decide: %w", rec.Round, err)
	}
	a, _ := json.Marshal(want)
	b, _ := json.Marshal(rec)
	if !bytes.Equal(a, b) {
		return fmt.Errorf("experiment: the round loop's record of round %d is not the one the rule gives on the recorded units (a loop on another architecture or version?): %s, want %s", rec.Round, b, a)
	}
	if err := rule.Resume(rec); err != nil {
		return err
	}
	return s.journalRecorded(rule, rec, total)
}

// journalRecorded journals a round's record and reports it.
func (s *state) journalRecorded(rule *SeqRule, rec RoundRecord, total int) error {
	if err := s.journal.append(journalEntry{Kind: "round", Round: &rec, WallTimeMs: s.activeMs()}); err != nil {
		return err
	}
	s.mu.Lock()
	done := s.finished
	s.mu.Unlock()
	s.progress(Progress{Done: done, Total: total, Round: &RoundProgress{Round: rec.Round, MaxRounds: rule.MaxRounds(), Gates: rec.Gates, Active: rec.Active}})
	return nil
}
