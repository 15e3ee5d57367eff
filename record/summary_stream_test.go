package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A summary written piece by piece is byte for byte the one the encoder
// writes whole: empty and nil lists, HTML characters and all.
func TestSummaryStreamsAsEncoded(t *testing.T) {
	yes, score := true, 0.5
	full := &SuiteSummary{SchemaVersion: 1, SuiteID: "s<1>&", GeneratedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Status: SuitePassed,
		Totals:  Outcome{Attempts: 2, Completed: 2, Passed: 2},
		Metrics: map[string]MetricSummary{"b": Summarize([]float64{1, 2}), "a": Summarize([]float64{3})},
		Cases:   []CaseOutcome{{CaseID: "a<b>"}, {CaseID: "c", Metrics: map[string]MetricSummary{}}},
		Samples: []Sample{{Index: 0, CaseID: "a<b>", Passed: &yes, Score: &score, Metrics: map[string]float64{"x": 1}}, {Index: 1, CaseID: "c"}},
	}
	for name, s := range map[string]*SuiteSummary{
		"full":  full,
		"empty": {Cases: []CaseOutcome{}, Samples: []Sample{}},
		"nil":   {},
		"one":   {Cases: []CaseOutcome{{CaseID: "x"}}, Samples: []Sample{{CaseID: "x"}}},
	} {
		var whole bytes.Buffer
		enc := json.NewEncoder(&whole)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		var streamed bytes.Buffer
		if err := encode(&streamed, s, "  "); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(whole.String(), streamed.String()); diff != "" {
			t.Errorf("%s: (-encoded +streamed):\n%s", name, diff)
		}
	}
}

// BenchmarkSummaryWrite writes the summary of a suite of 1000 runs of
// distinct cases, each with the metrics of a run that reported usage, as
// suite-summary.json is written (to io.Discard): B/op is what writing it
// allocates, garbage made at the end of every suite.
func BenchmarkSummaryWrite(b *testing.B) {
	yes := true
	bld := NewSummaryBuilder("s")
	for i := range 1000 {
		it := SuiteItem{CaseID: fmt.Sprint("case-", i), Repetition: 1, Status: ItemCompleted, ExitReason: "done", Passed: &yes, RunDir: fmt.Sprint("../../case-", i, "/1")}
		bld.Add(i, it, sampleMetadata(), sampleGrading())
	}
	s := bld.Build(SuitePassed, time.Now())
	b.ReportAllocs()
	for b.Loop() {
		if err := encode(io.Discard, s, "  "); err != nil {
			b.Fatal(err)
		}
	}
}
