package orchestrator

import (
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// TestRunResultVerdictIsRecords: a run's result names its verdict as
// record.RunVerdict does; the grading alone calls a cancelled run "fail".
func TestRunResultVerdictIsRecords(t *testing.T) {
	no := false
	g := &record.Grading{SchemaVersion: record.SchemaVersion, Passed: &no}
	for exit, want := range map[lux.ExitReason]record.Verdict{
		lux.ExitCancelled: record.VerdictCancelled,
		lux.ExitTimeout:   record.VerdictFail,
	} {
		r := &record.Run{Metadata: &record.Metadata{ExitReason: exit}, Grading: g}
		if got := r.Verdict(); got != want {
			t.Errorf("%s: Verdict() = %q, want %q", exit, got, want)
		}
	}
	r := &record.Run{Metadata: &record.Metadata{ExitReason: lux.ExitDone}} // no grading.json
	if got := r.Verdict(); got != record.VerdictError {
		t.Errorf("done without grading: Verdict() = %q, want error", got)
	}
}
