package compare

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// exitRuns are runs of each way a run can end, with the grading the
// orchestrator writes for it, and the verdict record gives them.
func exitRuns() []struct {
	name string
	want record.Verdict
	edit func(*record.Run)
} {
	notDone := func(exit lux.ExitReason, harness bool) func(*record.Run) {
		return func(r *record.Run) {
			r.Metadata.ExitReason, r.Metadata.Reason = exit, "ended "+string(exit)
			if harness {
				r.Metadata.OperationalFailure = &record.OperationalFailure{Phase: record.PhaseDriver, Reason: "the agent's command is missing"}
			}
			r.Grading = report(ptr(false), ptr(0.5), outcome("tests", true, 1))
			r.Grading.Incomplete = &record.Incomplete{ExitReason: exit, Phase: record.PhaseRun, Reason: "ended " + string(exit)}
		}
	}
	return []struct {
		name string
		want record.Verdict
		edit func(*record.Run)
	}{
		{"done, passed", record.VerdictPass, func(r *record.Run) {}},
		{"done, failed", record.VerdictFail, func(r *record.Run) {
			r.Grading = report(ptr(false), ptr(0.0), outcome("tests", false, 0))
		}},
		{"done, no assertions", record.VerdictUngraded, func(r *record.Run) { r.Grading = report(nil, nil) }},
		{"done, an assertion could not grade", record.VerdictError, func(r *record.Run) {
			r.Grading = report(nil, nil, record.AssertionOutcome{ID: "tests", Type: "check", Error: "judge timed out"})
			r.Grading.Incomplete = &record.Incomplete{Phase: record.PhaseGrading, Reason: "judge timed out"}
		}},
		{"done, no grading.json", record.VerdictError, func(r *record.Run) { r.Grading = nil }},
		{"error", record.VerdictFail, notDone(lux.ExitError, false)},
		{"error by the harness", record.VerdictError, notDone(lux.ExitError, true)},
		{"timeout", record.VerdictFail, notDone(lux.ExitTimeout, false)},
		{"idle-timeout", record.VerdictFail, notDone(lux.ExitIdleTimeout, false)},
		{"max-interactions", record.VerdictFail, notDone(lux.ExitMaxInteractions, false)},
		{"budget", record.VerdictFail, notDone(lux.ExitBudget, false)},
		{"cancelled", record.VerdictCancelled, notDone(lux.ExitCancelled, false)},
	}
}

// TestRunComparisonVerdictIsRecords: a run comparison names each side's
// case verdict as record does, whatever way the run ended.
func TestRunComparisonVerdictIsRecords(t *testing.T) {
	for _, tt := range exitRuns() {
		t.Run(tt.name, func(t *testing.T) {
			a, b := run("a", "hello"), run("b", "hello", tt.edit)
			require.Equal(t, tt.want, record.RunVerdict(b.Metadata, b.Grading), "the fixture")
			c, err := RunRecords(a, b, Options{})
			require.NoError(t, err)
			assert.Equal(t, string(record.VerdictPass), c.Grading.Verdict.A)
			assert.Equal(t, string(tt.want), c.Grading.Verdict.B)
		})
	}
}

// TestSuiteComparisonCountsByRecordVerdict: a suite comparison counts a
// cancelled run as cancelled and a harness error as an error, as record
// does, not as failures of the agent.
func TestSuiteComparisonCountsByRecordVerdict(t *testing.T) {
	cancelled := spec{id: "c", passed: ptr(false), score: ptr(0.0), mutate: func(m *record.Metadata) { m.ExitReason = lux.ExitCancelled }}
	harness := spec{id: "h", passed: ptr(false), score: ptr(0.0), mutate: func(m *record.Metadata) {
		m.ExitReason, m.OperationalFailure = lux.ExitError, &record.OperationalFailure{Phase: record.PhaseDriver, Reason: "no agent"}
	}}
	runs := []spec{pass("p", ""), fail("f", ""), cancelled, harness}
	_, a := writeSuite(t, t.TempDir(), runs, suiteOpts{summary: true})
	_, b := writeSuite(t, t.TempDir(), runs, suiteOpts{summary: true})
	c, err := SuiteRecords(t.Context(), a, b, Options{})
	require.NoError(t, err)
	for _, s := range []SuiteInfo{c.A, c.B} {
		assert.Equal(t, [4]int{1, 1, 1, 1}, [4]int{s.Passed, s.Failed, s.Errored, s.Cancelled}, "passed, failed, errored, cancelled")
	}
}
