package experiment

import (
	"fmt"
	"math"

	"github.com/luxeval/lux/stats"
)

// SequentialGate is what the sequential test of a gate found: its test,
// why it stopped and when, its e-value against the threshold 1/Alpha, its
// anytime-valid p-value, its confidence sequence, and the e-process and
// sequence after every round it observed.
type SequentialGate struct {
	Test      string           `json:"test"`
	Method    stats.Method     `json:"method"`
	Stop      stats.StopReason `json:"stop"`
	Rounds    int              `json:"rounds"`              // rounds observed
	StoppedAt int              `json:"stoppedAt,omitempty"` // the round it stopped in
	MaxRounds int              `json:"maxRounds"`
	// Alpha is the test's own error rate: the campaign's alpha over the
	// number of variants (Bonferroni); the threshold is 1/Alpha.
	Alpha     float64 `json:"alpha"`
	EValue    float64 `json:"eValue"`
	MaxEValue float64 `json:"maxEValue"`
	PValue    float64 `json:"pValue"` // anytime-valid: min(1, 1/MaxEValue)
	// Pairs, Wins and Losses are the sign test's pairs used and its
	// discordant pairs won by the variant and by the baseline.
	Pairs  int `json:"pairs,omitempty"`
	Wins   int `json:"wins,omitempty"`
	Losses int `json:"losses,omitempty"`
	// Of says what the sequence bounds: "win rate" (the sign test: the
	// share of discordant pairs the variant wins) or "effect" (the mean
	// paired difference per round).
	Of       string     `json:"of"`
	Estimate float64    `json:"estimate"`
	Lower    float64    `json:"lower"`
	Upper    float64    `json:"upper"`
	Futility float64    `json:"futility,omitempty"` // the futility margin: a win rate, or an effect beyond the bound
	History  []SeqPoint `json:"history"`
}

// SequentialSpend is what a sequential campaign ran against its worst
// case: every valid candidate running every case MaxRounds times.
type SequentialSpend struct {
	// Runs are the finished runs (units) the decision rests on; a run
	// killed mid-way and run again on resume counts once (Manifest.Spent
	// counts every start).
	Runs    int `json:"runs"`
	MaxRuns int `json:"maxRuns"`
	Rounds  int `json:"rounds"` // rounds run
}

// Text is "decided after N of at most M runs (saved K)", or "stopped
// after" when a gate is undecided.
func (sp *SequentialSpend) Text(decided bool) string {
	verb := "decided"
	if !decided {
		verb = "stopped undecided"
	}
	return fmt.Sprintf("%s after %d of at most %d runs (saved %d), %d rounds", verb, sp.Runs, sp.MaxRuns, sp.MaxRuns-sp.Runs, sp.Rounds)
}

// sequentialOf replays the units through the sequential engine, for
// evaluate; nil for a campaign without a sequential rule.
func sequentialOf(c *Campaign, cands []CandidateRef, ev *evidence, cases map[string][]CaseRef) (*seqEngine, *SequentialSpend, error) {
	if c.Sequential == nil {
		return nil, nil, nil
	}
	ids := caseIDs(cases)
	e, err := newSeqEngine(c, cands, ids)
	if err != nil {
		return nil, nil, err
	}
	if err := e.replay(indexSamples(ev)); err != nil {
		return nil, nil, err
	}
	sp := &SequentialSpend{Rounds: e.round}
	for _, ss := range ev.samples {
		sp.Runs += len(ss)
	}
	perRound := 0
	for _, l := range ids {
		perRound += len(l)
	}
	valid := 0
	for _, cand := range cands {
		if cand.Invalid == "" {
			valid++
		}
	}
	sp.MaxRuns = valid * len(c.profileNames()) * perRound * c.Sequential.MaxRounds
	return e, sp, nil
}

// seqGateOf is the gate of constraint k for a variant, as its sequential
// test decided it.
func seqGateOf(e *seqEngine, g Gate, k Constraint, profile string) Gate {
	var sg *seqGate
	for _, x := range e.gates {
		if x.cand == g.Candidate && x.index == g.Constraint && x.profile == profile {
			sg = x
		}
	}
	if sg == nil {
		g.Note = "no sequential test ran"
		return g
	}
	// The fixed-n measurement of the gate decides nothing here.
	g.Passed, g.Lower, g.Upper, g.Method, g.Level, g.Note, g.Need, g.Inconclusive = false, nil, nil, "", 0, "", 0, false
	sq := e.c.Sequential
	out := &SequentialGate{Test: k.Test, Stop: sg.stop, Rounds: len(sg.history), StoppedAt: sg.stopped, MaxRounds: sq.MaxRounds,
		Alpha: e.c.testAlpha(), History: append([]SeqPoint{}, sg.history...)}
	g.Units = sg.n
	if sg.sign != nil {
		res := sg.sign.Result()
		out.Method, out.EValue, out.MaxEValue, out.PValue = res.Method, res.EValue, res.MaxEValue, res.PValue
		out.Pairs, out.Wins, out.Losses = res.Pairs, res.Wins, res.Losses
		out.Of, out.Estimate, out.Lower, out.Upper, out.Futility = "win rate", res.WinRate.Estimate, res.WinRate.Lower, res.WinRate.Upper, sq.FutilityWinRate
		if res.Pairs > 0 {
			g.Value = float64(res.Wins-res.Losses) / float64(res.Pairs)
		}
	} else {
		cs := sg.result()
		out.Method, out.EValue, out.MaxEValue, out.PValue = cs.Method, cs.EValue, cs.MaxEValue, cs.PValue
		out.Of, out.Estimate, out.Lower, out.Upper, out.Futility = "effect", cs.Estimate, cs.Lower, cs.Upper, sq.FutilityEffect
		g.Value = cs.Estimate
		if cs.N > 0 {
			lo, hi := cs.Lower, cs.Upper
			g.Lower, g.Upper, g.Method, g.Level = &lo, &hi, cs.Method, cs.Level
		}
	}
	if math.IsNaN(out.PValue) {
		out.PValue = 1
	}
	g.Sequential = out
	switch sg.stop {
	case stats.Crossed:
		g.Passed = true
	case stats.Futile:
		g.Note = "futile: " + out.futileText(k)
	default:
		g.Inconclusive = true
	}
	return g
}

// futileText says what a futile gate's sequence excludes.
func (s *SequentialGate) futileText(k Constraint) string {
	if s.Of == "win rate" {
		return fmt.Sprintf("its futility test rejects a win rate of %v or more among discordant pairs", s.Futility)
	}
	bound := 0.0
	if k.Min != nil {
		return fmt.Sprintf("an effect of %s or more is excluded", signed(*k.Min+s.Futility))
	}
	if k.Max != nil {
		bound = *k.Max
	}
	return fmt.Sprintf("an effect of %s or less is excluded", signed(bound-s.Futility))
}

// text is the sequential part of a gate's text: "sign test e=52.3 ≥
// 1/α=40 (anytime p=0.019), win rate 0.9 CS [0.61, 0.99] 95%, 9 of 10
// discordant pairs won in 24 pairs, round 3 of at most 10".
func (s *SequentialGate) text() string {
	cmp := "<"
	if s.MaxEValue >= 1/s.Alpha {
		cmp = "≥"
	}
	out := fmt.Sprintf("%s e=%.4g (max %.4g %s 1/α=%.4g, anytime p=%.4g)", s.Test, s.EValue, s.MaxEValue, cmp, 1/s.Alpha, s.PValue)
	if s.Of == "win rate" {
		out += fmt.Sprintf(", win rate %.3g CS [%.3g, %.3g] at %g%%, %d of %d discordant pairs won in %d pairs",
			s.Estimate, s.Lower, s.Upper, 100*(1-s.Alpha), s.Wins, s.Wins+s.Losses, s.Pairs)
	}
	round := s.StoppedAt
	if round == 0 {
		round = s.Rounds
	}
	return out + fmt.Sprintf(", round %d of at most %d", round, s.MaxRounds)
}
