package experiment

import (
	"fmt"
	"math"
	"slices"

	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/stats"
)

// SeqGateState is one sequential gate after a round, as the ledger's
// journal records it: the test's full state (resumable bit for bit), its
// stop and what it shows.
type SeqGateState struct {
	Candidate  string               `json:"candidate"`
	Constraint int                  `json:"constraint"`
	Profile    string               `json:"profile"`
	Sign       *stats.SignTestState `json:"sign,omitempty"`
	Betting    *stats.BettingState  `json:"betting,omitempty"`
	EB         *stats.EBState       `json:"eb,omitempty"`
	Stop       stats.StopReason     `json:"stop"`
	StoppedAt  int                  `json:"stoppedAt,omitempty"` // the round the gate stopped in
	Point      SeqPoint             `json:"point"`
}

// SeqPoint is a sequential gate's e-process and confidence sequence after
// a round: ln E, and the bounds and estimate of the sequence (the win
// rate among discordant pairs for the sign test, the mean paired
// difference per round for a confidence sequence).
type SeqPoint struct {
	Round    int     `json:"round"`
	LogE     float64 `json:"logE"`
	Lower    float64 `json:"lower"`
	Upper    float64 `json:"upper"`
	Estimate float64 `json:"estimate"`
}

// roundRecord is a journal line of kind "round": every sequential gate
// after the round, and the variants that run the next one.
type RoundRecord struct {
	Round  int            `json:"round"`
	Gates  []SeqGateState `json:"gates"`
	Active []string       `json:"active"`
}

// seqGate is a sequential gate being run.
type seqGate struct {
	cand    string
	index   int
	k       Constraint
	profile string
	n       int // cases of the split
	sign    *stats.SignTest
	bet     *stats.BettingSequence
	eb      *stats.EBSequence
	stop    stats.StopReason
	stopped int
	history []SeqPoint
}

// seqEngine runs the sequential gates of a campaign round by round. It is
// the one implementation of the rule: the run loop feeds it each round
// as it finishes, and evaluate replays the recorded units through it, so
// the decision remains a function of the units.
type seqEngine struct {
	c     *Campaign // with defaults
	cases map[string][]string
	gates []*seqGate
	cands []string // the variants with gates, in order
	round int      // the last round observed
}

// newSeqEngine starts the gates of every valid variant of cands; cases
// are each split's case ids in their order.
func newSeqEngine(c *Campaign, cands []CandidateRef, cases map[string][]string) (*seqEngine, error) {
	e := &seqEngine{c: c, cases: cases}
	for _, cand := range cands {
		if cand.ID == BaselineID || cand.Invalid != "" {
			continue
		}
		e.cands = append(e.cands, cand.ID)
		for i, k := range c.Objectives.Constraints {
			if !c.sequentialGate(k) {
				continue
			}
			for _, profile := range c.constraintProfiles(k) {
				g := &seqGate{cand: cand.ID, index: i, k: k, profile: profile, n: len(cases[k.Split]), stop: stats.Continuing}
				var err error
				switch k.Test {
				case TestSign:
					g.sign, err = stats.NewSignTest(c.signOptions(k, g.n))
				case TestEB:
					g.eb, err = stats.NewEBSequence(c.csOptions(k))
				default:
					g.bet, err = stats.NewBettingSequence(c.csOptions(k))
				}
				if err != nil {
					return nil, fmt.Errorf("experiment: objectives.constraints[%d]: %w", i, err)
				}
				e.gates = append(e.gates, g)
			}
		}
	}
	return e, nil
}

// gatesOf are a candidate's gates.
func (e *seqEngine) gatesOf(cand string) []*seqGate {
	var out []*seqGate
	for _, g := range e.gates {
		if g.cand == cand {
			out = append(out, g)
		}
	}
	return out
}

// active reports whether the variant runs another round: none of its
// gates is futile or capped, not all have crossed, and MaxRounds is not
// reached.
func (e *seqEngine) active(cand string) bool {
	gs := e.gatesOf(cand)
	if len(gs) == 0 || e.round >= e.c.Sequential.MaxRounds {
		return false
	}
	crossed := 0
	for _, g := range gs {
		switch g.stop {
		case stats.Futile, stats.MaxReached:
			return false
		case stats.Crossed:
			crossed++
		}
	}
	return crossed < len(gs)
}

// activeCandidates are the variants that run the next round.
func (e *seqEngine) activeCandidates() []string {
	out := []string{}
	for _, c := range e.cands {
		if e.active(c) {
			out = append(out, c)
		}
	}
	return out
}

// sampleKey finds one run.
type sampleKey struct {
	cand, profile, split, caseID string
	rep                          int
}

// sampleIndex is the runs by candidate, profile, split, case and
// repetition.
type sampleIndex map[sampleKey]*record.Sample

func indexSamples(ev *evidence) sampleIndex {
	idx := sampleIndex{}
	for a, ss := range ev.samples {
		for i := range ss {
			idx[sampleKey{a.candidate, a.profile, a.split, ss[i].CaseID, ss[i].Repetition}] = &ss[i]
		}
	}
	return idx
}

// complete reports whether round r has every run the active variants'
// gates observe, on both sides.
func (e *seqEngine) complete(r int, idx sampleIndex, active []string) bool {
	for _, g := range e.gates {
		if !slices.Contains(active, g.cand) {
			continue
		}
		for _, id := range e.cases[g.k.Split] {
			for _, cand := range []string{BaselineID, g.cand} {
				if idx[sampleKey{cand, g.profile, g.k.Split, id, r}] == nil {
					return false
				}
			}
		}
	}
	return true
}

// observe feeds round r (the next one) to the gates of the variants still
// running and returns the journal record of the round.
func (e *seqEngine) observe(r int, idx sampleIndex) (RoundRecord, error) {
	if r != e.round+1 {
		return RoundRecord{}, fmt.Errorf("experiment: round %d observed after round %d", r, e.round)
	}
	active := e.activeCandidates()
	for _, g := range e.gates {
		if !slices.Contains(active, g.cand) || g.stop != stats.Continuing {
			continue
		}
		if err := g.observe(e.c, r, e.cases[g.k.Split], idx); err != nil {
			return RoundRecord{}, err
		}
	}
	e.round = r
	return e.record(), nil
}

// record is the engine's state as a journal line.
func (e *seqEngine) record() RoundRecord {
	rec := RoundRecord{Round: e.round, Gates: []SeqGateState{}, Active: e.activeCandidates()}
	for _, g := range e.gates {
		st := SeqGateState{Candidate: g.cand, Constraint: g.index, Profile: g.profile, Stop: g.stop, StoppedAt: g.stopped, Point: g.point(e.round)}
		switch {
		case g.sign != nil:
			s := g.sign.State()
			st.Sign = &s
		case g.eb != nil:
			s := g.eb.State()
			st.EB = &s
		default:
			s := g.bet.State()
			st.Betting = &s
		}
		rec.Gates = append(rec.Gates, st)
	}
	return rec
}

// resume continues every gate from a journaled round: the same
// e-processes, not new ones.
func (e *seqEngine) resume(rec RoundRecord) error {
	if len(rec.Gates) != len(e.gates) {
		return fmt.Errorf("experiment: the journal's round %d has %d sequential gates, the campaign %d", rec.Round, len(rec.Gates), len(e.gates))
	}
	for i, g := range e.gates {
		st := rec.Gates[i]
		if st.Candidate != g.cand || st.Constraint != g.index || st.Profile != g.profile {
			return fmt.Errorf("experiment: the journal's round %d gate %d is %s constraint %d on %s, the campaign's %s constraint %d on %s",
				rec.Round, i, st.Candidate, st.Constraint, st.Profile, g.cand, g.index, g.profile)
		}
		var err error
		switch {
		case g.sign != nil && st.Sign != nil:
			g.sign, err = stats.ResumeSignTest(*st.Sign)
		case g.eb != nil && st.EB != nil:
			g.eb, err = stats.ResumeEB(*st.EB)
		case g.bet != nil && st.Betting != nil:
			g.bet, err = stats.ResumeBetting(*st.Betting)
		default:
			err = fmt.Errorf("no state of its test (%s)", g.k.Test)
		}
		if err != nil {
			return fmt.Errorf("experiment: the journal's round %d, %s constraint %d: %w", rec.Round, g.cand, g.index, err)
		}
		g.stop, g.stopped = st.Stop, st.StoppedAt
	}
	e.round = rec.Round
	return nil
}

// observe feeds round r to the gate.
func (g *seqGate) observe(c *Campaign, r int, cases []string, idx sampleIndex) error {
	sq := c.Sequential
	if g.sign != nil {
		var res stats.SignTestResult
		for _, id := range cases {
			b := idx[sampleKey{BaselineID, g.profile, g.k.Split, id, r}]
			v := idx[sampleKey{g.cand, g.profile, g.k.Split, id, r}]
			if b == nil || v == nil {
				return fmt.Errorf("experiment: round %d has no pair of runs of case %s for %s and the baseline on %s", r, id, g.cand, g.profile)
			}
			res = g.sign.Observe(compare.SamplePassed(*b), compare.SamplePassed(*v))
		}
		g.stop = res.Stop
	} else {
		sum, n := 0.0, 0
		for _, id := range cases {
			b, okB := metricOf(g.k.Metric, idx[sampleKey{BaselineID, g.profile, g.k.Split, id, r}])
			v, okV := metricOf(g.k.Metric, idx[sampleKey{g.cand, g.profile, g.k.Split, id, r}])
			if okB && okV {
				sum, n = sum+v-b, n+1
			}
		}
		if n > 0 {
			var cs stats.ConfidenceSequence
			var err error
			if g.eb != nil {
				cs, err = g.eb.Observe(sum / float64(n))
			} else {
				cs, err = g.bet.Observe(sum / float64(n))
			}
			if err != nil {
				return fmt.Errorf("experiment: %s objectives.constraints[%d] round %d: %w", g.cand, g.index, r, err)
			}
			g.stop = csStop(g.k, cs, sq.FutilityEffect)
		}
		if r < sq.MinRounds {
			g.stop = stats.Continuing
		}
		if g.stop == stats.Continuing && r >= sq.MaxRounds {
			g.stop = stats.MaxReached
		}
	}
	if g.stop != stats.Continuing && g.stopped == 0 {
		g.stopped = r
	}
	g.history = append(g.history, g.point(r))
	return nil
}

// metricOf is a run's value of a [0, 1] metric.
func metricOf(metric string, s *record.Sample) (float64, bool) {
	if s == nil {
		return 0, false
	}
	if metric == MetricPassRate {
		if compare.SamplePassed(*s) {
			return 1, true
		}
		return 0, true
	}
	if s.Score == nil || math.IsNaN(*s.Score) {
		return 0, false
	}
	return math.Min(1, math.Max(0, *s.Score)), true
}

// point is the gate's e-process and sequence now.
func (g *seqGate) point(r int) SeqPoint {
	if g.sign != nil {
		res := g.sign.Result()
		return SeqPoint{Round: r, LogE: res.LogEValue, Lower: res.WinRate.Lower, Upper: res.WinRate.Upper, Estimate: res.WinRate.Estimate}
	}
	cs := g.result()
	return SeqPoint{Round: r, LogE: cs.LogEValue, Lower: cs.Lower, Upper: cs.Upper, Estimate: cs.Estimate}
}

// result is a confidence-sequence gate's sequence now.
func (g *seqGate) result() stats.ConfidenceSequence {
	if g.eb != nil {
		return g.eb.Result()
	}
	return g.bet.Result()
}

// replay runs the engine over the recorded units, round by round while
// rounds are complete and a variant is running.
func (e *seqEngine) replay(idx sampleIndex) error {
	for r := e.round + 1; r <= e.c.Sequential.MaxRounds; r++ {
		active := e.activeCandidates()
		if len(active) == 0 || !e.complete(r, idx, active) {
			return nil
		}
		if _, err := e.observe(r, idx); err != nil {
			return err
		}
	}
	return nil
}

// caseIDs are each split's case ids, in the ledger's order.
func caseIDs(splits map[string][]CaseRef) map[string][]string {
	out := map[string][]string{}
	for s, refs := range splits {
		for _, r := range refs {
			out[s] = append(out[s], r.ID)
		}
	}
	return out
}
