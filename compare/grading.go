package compare

import (
	"fmt"
	"strconv"

	"github.com/luxeval/lux/record"
)

// The verdicts an assertion's state shows (a run's case verdict is
// record.RunVerdict's, in the same words).
const (
	VerdictPass     = string(record.VerdictPass)
	VerdictFail     = string(record.VerdictFail)
	VerdictUngraded = string(record.VerdictUngraded) // could not be graded: no verdict, never a silent pass or fail
)

// GradingDelta compares the grading of two runs.
type GradingDelta struct {
	// Available is false on a side without grading.json.
	Available Change[bool] `json:"available"`
	// Verdict is each run's verdict, record.RunVerdict's: "pass",
	// "fail", "error" (the harness could not grade), "cancelled" or
	// "ungraded" (nothing to grade).
	Verdict    Change[string]             `json:"verdict"`
	Score      Change[*float64]           `json:"score"` // null: no score
	Incomplete Change[*record.Incomplete] `json:"incomplete"`
	Counts     AssertionCounts            `json:"counts"`
	// Assertions are keyed by assertion id, sorted; unchanged ones included.
	Assertions []AssertionDelta `json:"assertions"`
}

// AssertionStatus is how one assertion changed from A to B.
type AssertionStatus string

// The assertion statuses.
const (
	StatusRegressed AssertionStatus = "regressed"  // passed in A; failed, or could not be graded, in B
	StatusImproved  AssertionStatus = "improved"   // did not pass in A; passed in B
	StatusScoreUp   AssertionStatus = "score-up"   // same verdict, higher score
	StatusScoreDown AssertionStatus = "score-down" // same verdict, lower score
	StatusUngraded  AssertionStatus = "ungraded"   // passed on neither side, and could not be graded on one
	StatusAdded     AssertionStatus = "added"      // only in B
	StatusRemoved   AssertionStatus = "removed"    // only in A
	StatusUnchanged AssertionStatus = "unchanged"
)

// AssertionCounts counts the assertions by status.
type AssertionCounts struct {
	Regressed int `json:"regressed"`
	Improved  int `json:"improved"`
	ScoreUp   int `json:"scoreUp"`
	ScoreDown int `json:"scoreDown"`
	Ungraded  int `json:"ungraded"`
	Added     int `json:"added"`
	Removed   int `json:"removed"`
	Unchanged int `json:"unchanged"`
}

func (c *AssertionCounts) add(s AssertionStatus) {
	switch s {
	case StatusRegressed:
		c.Regressed++
	case StatusImproved:
		c.Improved++
	case StatusScoreUp:
		c.ScoreUp++
	case StatusScoreDown:
		c.ScoreDown++
	case StatusUngraded:
		c.Ungraded++
	case StatusAdded:
		c.Added++
	case StatusRemoved:
		c.Removed++
	default:
		c.Unchanged++
	}
}

// AssertionDelta is one assertion on both sides.
type AssertionDelta struct {
	// Key is the assertion id (its name for records without ids), with
	// " (#2)", " (#3)", ... for repeated keys.
	Key    string          `json:"key"`
	Type   string          `json:"type"`
	Name   string          `json:"name"`
	Status AssertionStatus `json:"status"`
	A      *AssertionState `json:"a"` // null: not on this side
	B      *AssertionState `json:"b"`
}

// AssertionState is an assertion's outcome on one side.
type AssertionState struct {
	Passed *bool   `json:"passed"` // null: could not be graded (Error says why)
	Score  float64 `json:"score"`
	Error  string  `json:"error,omitempty"`
}

func gradingDelta(a, b *record.Grading, metaA, metaB *record.Metadata) GradingDelta {
	d := GradingDelta{
		Available:  Change[bool]{a != nil, b != nil},
		Verdict:    Change[string]{string(record.RunVerdict(metaA, a)), string(record.RunVerdict(metaB, b))},
		Score:      Change[*float64]{scoreOf(a), scoreOf(b)},
		Incomplete: Change[*record.Incomplete]{incompleteOf(a), incompleteOf(b)},
		Assertions: []AssertionDelta{},
	}
	ka, kb := keyed(a), keyed(b)
	for _, k := range sortedKeys(ka, kb) {
		oa, inA := ka[k]
		ob, inB := kb[k]
		ad := AssertionDelta{Key: k}
		ref := oa
		if !inA {
			ref = ob
		}
		ad.Type, ad.Name = ref.Type, ref.Name
		if inA {
			ad.A = stateOf(oa)
		}
		if inB {
			ad.B = stateOf(ob)
		}
		ad.Status = assertionStatus(ad.A, ad.B, inA || a == nil, inB || b == nil)
		d.Counts.add(ad.Status)
		d.Assertions = append(d.Assertions, ad)
	}
	return d
}

// assertionStatus classifies one assertion. hasA is false when A's report
// exists and lacks the assertion (it was added); a side without any
// report has the assertion with no verdict.
func assertionStatus(a, b *AssertionState, hasA, hasB bool) AssertionStatus {
	switch {
	case !hasA:
		return StatusAdded
	case !hasB:
		return StatusRemoved
	}
	passA, passB := a != nil && a.Passed != nil && *a.Passed, b != nil && b.Passed != nil && *b.Passed
	gradedA, gradedB := a != nil && a.Passed != nil, b != nil && b.Passed != nil
	switch {
	case passA && !passB:
		return StatusRegressed
	case !passA && passB:
		return StatusImproved
	case !gradedA || !gradedB:
		return StatusUngraded
	case b.Score > a.Score:
		return StatusScoreUp
	case b.Score < a.Score:
		return StatusScoreDown
	}
	return StatusUnchanged
}

// flips lists, as reasons, the changes the gate counts: the case verdict
// or an assertion going from pass to anything else (regressions), and the
// other way (improvements).
func (d *GradingDelta) flips() (regressions, improvements []string) {
	va, vb := d.Verdict.A, d.Verdict.B
	switch {
	case va == VerdictPass && vb != VerdictPass:
		regressions = append(regressions, fmt.Sprintf("case verdict %s → %s", va, vb))
	case va != VerdictPass && vb == VerdictPass:
		improvements = append(improvements, fmt.Sprintf("case verdict %s → %s", va, vb))
	}
	for _, ad := range d.Assertions {
		switch ad.Status {
		case StatusRegressed:
			regressions = append(regressions, fmt.Sprintf("assertion %s %s → %s", strconv.Quote(ad.Key), ad.A.verdict(), ad.B.verdict()))
		case StatusImproved:
			improvements = append(improvements, fmt.Sprintf("assertion %s %s → %s", strconv.Quote(ad.Key), ad.A.verdict(), ad.B.verdict()))
		}
	}
	return regressions, improvements
}

// verdict is "pass", "fail" or "ungraded" (also for an absent state).
func (s *AssertionState) verdict() string {
	switch {
	case s == nil || s.Passed == nil:
		return VerdictUngraded
	case *s.Passed:
		return VerdictPass
	}
	return VerdictFail
}

func scoreOf(g *record.Grading) *float64 {
	if g == nil {
		return nil
	}
	return g.Score
}

func incompleteOf(g *record.Grading) *record.Incomplete {
	if g == nil {
		return nil
	}
	return g.Incomplete
}

func stateOf(o record.AssertionOutcome) *AssertionState {
	s := &AssertionState{Score: o.Score, Error: o.Error}
	if o.Error == "" {
		p := o.Passed
		s.Passed = &p
	}
	return s
}

// keyed indexes a report's assertions by id (name when there is none);
// repeated keys get " (#2)", " (#3)", ...
func keyed(g *record.Grading) map[string]record.AssertionOutcome {
	out := map[string]record.AssertionOutcome{}
	if g == nil {
		return out
	}
	seen := map[string]int{}
	for _, o := range g.Assertions {
		k := o.ID
		if k == "" {
			k = o.Name
		}
		seen[k]++
		if n := seen[k]; n > 1 {
			k = fmt.Sprintf("%s (#%d)", k, n)
		}
		out[k] = o
	}
	return out
}
