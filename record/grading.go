package record

import (
	"github.com/luxeval/lux"
)

// Grading is grading.json: each assertion's outcome and the case
// verdict. Passed and Score are nil when grading is incomplete (an
// assertion could not be evaluated): no verdict, never a silent pass or fail.
type Grading struct {
	SchemaVersion int                `json:"schemaVersion"`
	Passed        *bool              `json:"casePassed"`
	Score         *float64           `json:"caseScore"`
	Assertions    []AssertionOutcome `json:"assertions"`
	Incomplete    *Incomplete        `json:"incomplete,omitempty"`
}

// Incomplete says why a grading report has no verdict, or why the run's
// verdict is a failure regardless of its assertions.
type Incomplete struct {
	ExitReason lux.ExitReason `json:"exitReason"`
	Phase      Phase          `json:"phase"` // run, collection or grading
	Reason     string         `json:"reason,omitempty"`
}

// AssertionOutcome is one assertion's result within a grading report.
type AssertionOutcome struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Passed     bool            `json:"passed"`
	Score      float64         `json:"score"`
	Weight     float64         `json:"weight"`
	Threshold  float64         `json:"threshold"`
	DurationMs int64           `json:"durationMs"`
	Comment    string          `json:"comment,omitempty"`
	Detail     any             `json:"detail,omitempty"`
	Error      string          `json:"error,omitempty"` // could not grade: no verdict
	Usage      *lux.ModelUsage `json:"usage,omitempty"` // what its judge spent
}
