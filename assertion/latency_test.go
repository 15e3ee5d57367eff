package assertion_test

import (
	"testing"
	"time"

	"github.com/luxeval/lux"
)

// Times that cannot be a latency (missing, or an end before the start) mean
// the run cannot be graded, never a silent pass.
func TestLatencyUnderImpossibleTimes(t *testing.T) {
	tests := []struct {
		name string
		edit func(m *lux.Outcome)
		want string
	}{
		{"agent end before start", func(m *lux.Outcome) {
			m.AgentEndedAt = m.StartedAt.Add(-time.Second)
		}, "assertion: latency-under: the run's metadata ends (2025-01-02T03:04:04Z) before it starts (2025-01-02T03:04:05Z)"},
		{"end before start", func(m *lux.Outcome) {
			m.AgentEndedAt = time.Time{}
			m.EndedAt = m.StartedAt.Add(-time.Minute)
		}, "assertion: latency-under: the run's metadata ends (2025-01-02T03:03:05Z) before it starts (2025-01-02T03:04:05Z)"},
		{"no start", func(m *lux.Outcome) { m.StartedAt = time.Time{} },
			"assertion: latency-under: the run's metadata has no start or end time"},
		{"no end", func(m *lux.Outcome) { m.AgentEndedAt, m.EndedAt = time.Time{}, time.Time{} },
			"assertion: latency-under: the run's metadata has no start or end time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := workspace(t)
			tt.edit(run.Outcome)
			res, err := parse(t, "latency-under", `{"max":"1h"}`).Evaluate(t.Context(), run)
			if err == nil {
				t.Fatalf("Evaluate = %+v, want an error", res)
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q\nwant    %q", err, tt.want)
			}
		})
	}
}
