package report

import (
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// TestRunVerdictIsRecords: the run page and the pair page show a run's
// verdict as record.RunVerdict gives it, whatever way the run ended; the
// grading's own verdict alone calls a cancelled run "fail".
func TestRunVerdictIsRecords(t *testing.T) {
	no := false
	graded := &record.Grading{SchemaVersion: record.SchemaVersion, Passed: &no, Score: ptr(0.0)}
	for _, tt := range []struct {
		exit    lux.ExitReason
		harness bool
		want    record.Verdict
	}{
		{lux.ExitCancelled, false, record.VerdictCancelled},
		{lux.ExitError, true, record.VerdictError},
		{lux.ExitTimeout, false, record.VerdictFail},
	} {
		m := &record.Metadata{CaseID: "c", ExitReason: tt.exit}
		if tt.harness {
			m.OperationalFailure = &record.OperationalFailure{Phase: record.PhaseDriver, Reason: "no agent"}
		}
		r := &record.Run{Dir: "d", Metadata: m, Grading: graded}
		if got := runPage(r, Options{}, 0).Verdict; got != string(tt.want) {
			t.Errorf("%s run page: verdict %q, want %q", tt.exit, got, tt.want)
		}
		if got := pairSide("A", r, Options{}, nil).Verdict; got != string(tt.want) {
			t.Errorf("%s pair side: verdict %q, want %q", tt.exit, got, tt.want)
		}
	}
}
