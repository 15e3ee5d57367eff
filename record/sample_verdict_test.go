package record

import (
	"encoding/json"
	"testing"

	"github.com/luxeval/lux"
)

// TestSampleVerdict: a summary's samples record their run's verdict, and a
// summary written before they did still reads with the verdict its exit
// reason and casePassed imply.
func TestSampleVerdict(t *testing.T) {
	b := NewSummaryBuilder("s")
	meta := &Metadata{ExitReason: lux.ExitError, OperationalFailure: &OperationalFailure{Phase: PhaseDriver, Reason: "no agent"}}
	b.Add(0, SuiteItem{CaseID: "c", Repetition: 1, Status: ItemCompleted, ExitReason: lux.ExitError, RunVerdict: RunVerdict(meta, nil)}, meta, nil)
	data, err := json.Marshal(b.Build(SuiteFailed, meta.StartedAt).Samples[0])
	if err != nil {
		t.Fatal(err)
	}
	var s Sample
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if s.Verdict() != VerdictError {
		t.Errorf("a recorded sample's verdict: %q, want error (%s)", s.Verdict(), data)
	}
	for old, want := range map[string]Verdict{
		`{"caseId":"c","exitReason":"cancelled","casePassed":null}`: VerdictCancelled,
		`{"caseId":"c","exitReason":"timeout","casePassed":false}`:  VerdictFail,
		`{"caseId":"c","exitReason":"done","casePassed":true}`:      VerdictPass,
		`{"caseId":"c","exitReason":"done","casePassed":null}`:      VerdictUngraded,
	} {
		var s Sample
		if err := json.Unmarshal([]byte(old), &s); err != nil {
			t.Fatal(err)
		}
		if s.Verdict() != want {
			t.Errorf("%s: verdict %q, want %q", old, s.Verdict(), want)
		}
	}
}
