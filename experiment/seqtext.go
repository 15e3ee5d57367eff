package experiment

import (
	"fmt"
	"math"
	"strings"

	"github.com/luxeval/lux/stats"
)

// SequentialLines describe every sequential gate for text output: the
// gate with its test, e-value, anytime p-value and confidence sequence,
// then its e-process and sequence after each round it observed.
func SequentialLines(gates []Gate) []string {
	var out []string
	for _, g := range gates {
		s := g.Sequential
		if s == nil {
			continue
		}
		out = append(out, g.Candidate+": "+g.Text())
		var rounds []string
		for _, p := range s.History {
			rounds = append(rounds, fmt.Sprintf("%d: e=%.3g %s [%.3g, %.3g]", p.Round, math.Exp(p.LogE), s.Of, p.Lower, p.Upper))
		}
		if len(rounds) > 0 {
			out = append(out, "  by round (threshold 1/α = "+fmt.Sprintf("%.4g", 1/s.Alpha)+"): "+strings.Join(rounds, "; "))
		}
	}
	return out
}

// RoundLine is one line about a finished round, for progress output:
// each gate's e-value and stop, and the variants that run on.
func RoundLine(p *RoundProgress) string {
	var gates []string
	for _, g := range p.Gates {
		st := ""
		if g.Stop != stats.Continuing {
			st = " " + string(g.Stop)
		}
		gates = append(gates, fmt.Sprintf("%s #%d e=%.3g [%.3g, %.3g]%s", g.Candidate, g.Constraint, math.Exp(g.Point.LogE), g.Point.Lower, g.Point.Upper, st))
	}
	next := "none: done"
	if len(p.Active) > 0 {
		next = strings.Join(p.Active, ", ")
	}
	return fmt.Sprintf("round %d of at most %d: %s; next round: %s", p.Round, p.MaxRounds, strings.Join(gates, ", "), next)
}

// ConstraintText names the gate's constraint: "pass rate effect ≥ 0
// (default, validation)".
func (g Gate) ConstraintText() string { return constraintText(g) }

// sequentialGate is a candidate's first sequential gate; nil when none.
func (ev *Evaluation) sequentialGate(candidate string) *Gate {
	for i := range ev.Decision.Gates {
		if g := &ev.Decision.Gates[i]; g.Candidate == candidate && g.Sequential != nil {
			return g
		}
	}
	return nil
}

// short is the test's decision in a few words: "sign-test e=56.8 ≥ 1/α=40
// (anytime p=0.0176), win rate CS [0.479, 1] at 97.5%".
func (s *SequentialGate) short() string {
	cmp := "<"
	if s.MaxEValue >= 1/s.Alpha {
		cmp = "≥"
	}
	return fmt.Sprintf("%s e=%.4g %s 1/α=%.4g (anytime p=%.4g), %s CS [%.3g, %.3g] at %g%%",
		s.Test, s.MaxEValue, cmp, 1/s.Alpha, s.PValue, s.Of, s.Lower, s.Upper, 100*(1-s.Alpha))
}
