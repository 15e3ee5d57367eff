package record

import (
	"fmt"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/textline"
)

// RunRow is one run of a suite as the suite tables show it (the CLI's
// table, its JSON and JUnit, the HTML report): built once, by NewRunRow,
// from the suite item and the run's records.
type RunRow struct {
	CaseID     string         `json:"caseId"`
	Repetition int            `json:"repetition"`
	Verdict    Verdict        `json:"verdict"` // pass, fail, error, cancelled, not run, ungraded
	Score      *float64       `json:"score,omitempty"`
	ExitReason lux.ExitReason `json:"exitReason,omitempty"`
	// Reason says, in one line, why a run that did not pass ended as it
	// did (the agent's or the harness's error), when it did not end done,
	// or why it is ungraded.
	Reason string `json:"reason,omitempty"`
	// FailedAssertions are the assertions that did not pass, with why.
	FailedAssertions []FailedAssertion `json:"failedAssertions,omitempty"`
	DurationMS       int64             `json:"durationMs"`
	// AgentTokens is null when the agent reported no usage (unavailable).
	AgentTokens  *int64   `json:"agentTokens"`
	AgentCostUSD *float64 `json:"agentCostUsd,omitempty"`
	// RunDir is the run's directory (the CLI shows it relative to the
	// working directory when it is under it).
	RunDir string `json:"runDir,omitempty"`
	// RecordError is why the run's record could not be read (a file changed
	// since it was sealed, a file missing): the row then holds only what
	// the suite's own record says of the run (its verdict), none of the
	// run's figures.
	RecordError string `json:"recordError,omitempty"`
}

// FailedAssertion is an assertion that did not pass: its id and why, in
// one line. Error is set when it could not grade at all. Detail is the
// whole comment or error with its lines kept (a command's output, say),
// cut at 4 KiB; it is left out when Reason already says all of it.
type FailedAssertion struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
	Error  bool   `json:"error,omitempty"`
}

// NewRunRow builds the row of one run from its suite item (case id,
// repetition, verdict, directory and error) and its records (m and g nil
// when it has none).
func NewRunRow(caseID string, rep int, v Verdict, runDir string, m *Metadata, g *Grading, itemErr string) RunRow {
	return newRunRowOf(caseID, rep, v, runDir, rowBrief(m, g), itemErr)
}

// FailedAssertions are the assertions of g that did not pass or could not
// grade, each with why.
func FailedAssertions(g *Grading) []FailedAssertion {
	var out []FailedAssertion
	if g == nil {
		return nil
	}
	for _, a := range g.Assertions {
		if a.Passed && a.Error == "" {
			continue
		}
		id := a.ID
		if id == "" {
			id = a.Name
		}
		f := FailedAssertion{ID: id}
		switch {
		case a.Error != "":
			f.Reason, f.Error = "could not grade: "+textline.One(a.Error, 160), true
			f.Detail = "could not grade: " + textline.Keep(a.Error, textline.DetailBytes)
		case a.Comment != "":
			f.Reason = textline.One(a.Comment, 160)
			f.Detail = textline.Keep(a.Comment, textline.DetailBytes)
		default:
			f.Reason = fmt.Sprintf("score %.2f below its threshold %.2f", a.Score, a.Threshold)
		}
		if f.Detail == f.Reason {
			f.Detail = ""
		}
		out = append(out, f)
	}
	return out
}

// Text is why the assertion did not pass with its lines kept: Detail, or
// Reason when Detail would say no more.
func (f FailedAssertion) Text() string {
	if f.Detail != "" {
		return f.Detail
	}
	return f.Reason
}
