package record

import (
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/textline"
)

// RunBrief is what a suite's summary (SummaryBuilder) and its run tables
// (RunRow) read of one run's run.json and grading.json, taken from them
// by NewRunBrief: the run's identity hash and metrics, how it ended, its
// verdict and the assertions that did not pass. It is a few hundred bytes
// where the records in memory are kilobytes (provenance, evidence
// fingerprints, each assertion's detail), so that a suite keeps one per
// finished run (Suite.Written) and lets the records go once written. Its
// metrics map is the one the suite's summary holds for the run's sample,
// shared, never copied.
type RunBrief struct {
	// From run.json, when recorded is set.
	identityHash string
	metrics      map[string]float64
	exitReason   lux.ExitReason
	reason       string // one line, when it did not end done
	durationMS   int64
	agentTokens  *int64
	agentCostUSD *float64

	// From grading.json, when graded is set.
	passed *bool
	score  *float64
	failed []FailedAssertion

	recorded, graded, noAssertions bool
}

// NewRunBrief takes the brief of a run's records (m and g nil when it has
// none); nil when it has neither.
func NewRunBrief(m *Metadata, g *Grading) *RunBrief {
	b := rowBrief(m, g)
	if m != nil {
		b.identityHash = IdentityHash(m)
		b.metrics = RunMetrics(m)
	}
	return b
}

// rowBrief is the brief of a run's records less what only the summary
// reads (its identity hash and metrics): what a RunRow needs.
func rowBrief(m *Metadata, g *Grading) *RunBrief {
	if m == nil && g == nil {
		return nil
	}
	b := &RunBrief{}
	if m != nil {
		b.recorded = true
		b.exitReason = m.ExitReason
		b.durationMS = m.Duration().Milliseconds()
		if u := m.Usage.Agent; u != nil {
			n := u.Total()
			b.agentTokens = &n
		}
		b.agentCostUSD = m.Usage.AgentCostUSD
		if m.ExitReason != lux.ExitDone {
			// Cloned: a one-line reason can be a part of the whole one.
			b.reason = strings.Clone(textline.One(m.Reason, 200))
		}
	}
	if g != nil {
		b.graded = true
		b.passed, b.score = g.Passed, g.Score
		b.noAssertions = len(g.Assertions) == 0
		b.failed = FailedAssertions(g)
		for i := range b.failed {
			f := &b.failed[i]
			f.ID, f.Reason, f.Detail = strings.Clone(f.ID), strings.Clone(f.Reason), strings.Clone(f.Detail)
		}
	}
	return b
}

// newRunRowOf builds the row of one run from its suite item (case id,
// repetition, verdict, directory and error) and the brief of its records
// (nil when it has none): NewRunRow, and Suite.ItemRow.
func newRunRowOf(caseID string, rep int, v Verdict, runDir string, b *RunBrief, itemErr string) RunRow {
	if b == nil {
		b = &RunBrief{}
	}
	row := RunRow{CaseID: caseID, Repetition: rep, Verdict: v, RunDir: runDir}
	if v == VerdictUngraded && b.graded && b.noAssertions {
		row.Reason = `ungraded: the case has no assertions; add one, such as {"type": "run-succeeded"}`
	}
	if b.recorded {
		row.ExitReason = b.exitReason
		row.DurationMS = b.durationMS
		row.AgentTokens = b.agentTokens
		row.AgentCostUSD = b.agentCostUSD
		if b.exitReason != lux.ExitDone {
			row.Reason = b.reason
		}
	}
	if row.Reason == "" && v != VerdictPass && itemErr != "" {
		row.Reason = textline.One(itemErr, 200)
	}
	if b.graded {
		row.Score = b.score
		row.FailedAssertions = b.failed
	}
	return row
}
