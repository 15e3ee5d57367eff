package experiment

import (
	"fmt"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// SeqRuleSpec is what a campaign's sequential stopping rule is built
// from, as JSON: the rule, the gates it decides, the candidates and each
// split's cases. It is all a process needs to run the rule elsewhere (a
// Temporal workflow does, between rounds); the campaign's other fields
// play no part in it.
type SeqRuleSpec struct {
	Sequential Sequential `json:"sequential"`
	// Constraints are the campaign's constraints (with defaults), every
	// one, so that a gate's index is the campaign's.
	Constraints []Constraint `json:"constraints"`
	// Variants is how many variants the campaign tests: each test runs at
	// Alpha/Variants (Bonferroni).
	Variants int `json:"variants"`
	// Profiles are the campaign's profile names, sorted.
	Profiles []string `json:"profiles"`
	// Candidates are the ledger's candidates, baseline first; an invalid
	// one has no gates.
	Candidates []CandidateRef `json:"candidates"`
	// Cases are each split's case ids, in the ledger's order.
	Cases map[string][]string `json:"cases"`
}

// NewSeqRuleSpec is the spec of campaign c's rule (its defaults applied,
// as the experiment runs it) for a ledger's candidates and splits
// (Manifest.Candidates, Manifest.Splits).
func NewSeqRuleSpec(c *Campaign, cands []CandidateRef, splits map[string][]CaseRef) SeqRuleSpec {
	d := c.withDefaults()
	return newSeqRuleSpec(&d, cands, splits)
}

// newSeqRuleSpec is NewSeqRuleSpec of a campaign with its defaults.
func newSeqRuleSpec(c *Campaign, cands []CandidateRef, splits map[string][]CaseRef) SeqRuleSpec {
	sp := SeqRuleSpec{Constraints: c.Objectives.Constraints, Variants: len(c.Variants), Profiles: c.profileNames(),
		Candidates: cands, Cases: caseIDs(splits)}
	if c.Sequential != nil {
		sp.Sequential = *c.Sequential
	}
	return sp
}

// campaign is the campaign the rule reads: the spec's fields in their
// places.
func (sp *SeqRuleSpec) campaign() *Campaign {
	sq := sp.Sequential
	c := &Campaign{Sequential: &sq, Variants: make([]Variant, sp.Variants), Profiles: map[string]Profile{}}
	c.Objectives.Constraints = sp.Constraints
	for _, p := range sp.Profiles {
		c.Profiles[p] = Profile{}
	}
	return c
}

// RoundSample is one run of a round as the sequential rule reads it: the
// candidate, profile, split and case it ran, the round (its repetition),
// and its outcome: exit reason, pass and score (no transcript).
type RoundSample struct {
	Candidate  string         `json:"candidate"`
	Profile    string         `json:"profile"`
	Split      string         `json:"split"`
	CaseID     string         `json:"caseId"`
	Round      int            `json:"round"`
	ExitReason lux.ExitReason `json:"exitReason,omitempty"`
	Passed     *bool          `json:"passed"`
	Score      *float64       `json:"score"`
	// Verdict is the run's verdict when its sample records one.
	Verdict record.Verdict `json:"verdict,omitempty"`
}

// sample is the run as a suite's sample.
func (s *RoundSample) sample() *record.Sample {
	return &record.Sample{CaseID: s.CaseID, Repetition: s.Round, ExitReason: s.ExitReason, Passed: s.Passed, Score: s.Score, RunVerdict: s.Verdict}
}

// unitSample is a recorded unit as the rule reads it.
func unitSample(u *Unit) RoundSample {
	return RoundSample{Candidate: u.Candidate, Profile: u.Profile, Split: u.Split, CaseID: u.Sample.CaseID, Round: u.Sample.Repetition,
		ExitReason: u.Sample.ExitReason, Passed: u.Sample.Passed, Score: u.Sample.Score, Verdict: u.Sample.RunVerdict}
}

// SeqRule is a campaign's sequential stopping rule, round by round: every
// gate's e-process or confidence sequence observes each round's samples,
// and the rule says which variants run the next round. It is the one
// implementation of the rule, wherever the rounds run: the experiment's
// own loop feeds it, and so does a RoundsExecutor's workflow. It is
// deterministic (no I/O, no clock, no map iterated in its random order),
// so a Temporal workflow may run it as workflow code, and a rule resumed
// from a round's record goes on exactly as the one that wrote it.
type SeqRule struct {
	e *seqEngine
}

// NewSeqRule starts the rule of spec before its first round.
func NewSeqRule(spec SeqRuleSpec) (*SeqRule, error) {
	if spec.Sequential.MaxRounds < 1 {
		return nil, fmt.Errorf("experiment: sequential rule: maxRounds %d, want at least 1", spec.Sequential.MaxRounds)
	}
	e, err := newSeqEngine(spec.campaign(), spec.Candidates, spec.Cases)
	if err != nil {
		return nil, err
	}
	return &SeqRule{e: e}, nil
}

// Resume continues the rule from a round's record: the same e-processes,
// bit for bit, not new ones.
func (r *SeqRule) Resume(rec RoundRecord) error { return r.e.resume(rec) }

// Round is the last round observed (0 before the first).
func (r *SeqRule) Round() int { return r.e.round }

// MaxRounds is the most rounds a variant runs.
func (r *SeqRule) MaxRounds() int { return r.e.c.Sequential.MaxRounds }

// Active are the variants that run the next round, in the campaign's
// order; none once every variant stopped or MaxRounds is reached.
func (r *SeqRule) Active() []string { return r.e.activeCandidates() }

// Done reports whether no round is left to run.
func (r *SeqRule) Done() bool { return len(r.Active()) == 0 }

// Observe feeds round (the next one) to the gates of the variants still
// running and returns its record: every gate after it, and the variants
// that run the next round. samples must hold the round's run of every
// case, on every profile, for the baseline and each variant running;
// samples of other rounds are passed over.
func (r *SeqRule) Observe(round int, samples []RoundSample) (RoundRecord, error) {
	idx := sampleIndex{}
	for i := range samples {
		s := &samples[i]
		if s.Round == round {
			idx[sampleKey{s.Candidate, s.Profile, s.Split, s.CaseID, s.Round}] = s.sample()
		}
	}
	return r.e.observe(round, idx)
}
