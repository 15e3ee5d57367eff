package record

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run with every metric RunMetrics documents has each of them, once.
func TestRunMetricsEveryMetric(t *testing.T) {
	m := sampleMetadata()
	m.Usage.Answerer.Calls, m.Usage.Answerer.CostUSD, m.Usage.Judge.UnpricedCalls = 2, 0.5, 1
	m.Usage.Answerer.CacheRead = 4
	got := RunMetrics(m)
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := strings.Fields(`agent.cacheCreation agent.cacheHitRate agent.cacheRead agent.input agent.output agent.total
		artifacts.bytes artifacts.count cost.usd durationMs
		harness.cacheCreation harness.cacheHitRate harness.cacheRead harness.calls harness.costUsd harness.input harness.output harness.total harness.unpricedCalls
		interrupts interrupts.approve interrupts.ask interrupts.custom phase.agentMs phase.collectMs phase.gradingMs
		toolCalls toolCalls.failed toolCalls.failureRate toolCalls.malformed toolCalls.reported toolCalls.succeeded toolCalls.unmatchedResults toolCalls.unresolved`)
	assert.Equal(t, want, keys)
	assert.Equal(t, 2.0, got["harness.calls"])
}

// The row of a run built from the brief of its records is the row built
// from the records, and the brief holds the run's identity and metrics.
func TestRunRowOfBriefIsTheRowOfRecords(t *testing.T) {
	failed := sampleMetadata()
	failed.ExitReason, failed.Reason = lux.ExitError, "the agent\ncrashed"
	cases := []struct {
		name string
		m    *Metadata
		g    *Grading
		v    Verdict
	}{
		{"done, an assertion failed", sampleMetadata(), sampleGrading(), VerdictFail},
		{"error", failed, &Grading{Assertions: []AssertionOutcome{{ID: "x", Error: "no judge"}}}, VerdictError},
		{"ungraded", sampleMetadata(), &Grading{}, VerdictUngraded},
		{"no grading", failed, nil, VerdictError},
		{"no records", nil, nil, VerdictError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := NewRunBrief(c.m, c.g)
			want := NewRunRow("k", 2, c.v, "runs/k/1", c.m, c.g, "item error")
			assert.Empty(t, cmp.Diff(want, newRunRowOf("k", 2, c.v, "runs/k/1", b, "item error")))
			if c.m == nil {
				assert.Nil(t, b)
				return
			}
			require.NotNil(t, b)
			assert.Equal(t, IdentityHash(c.m), b.identityHash)
			assert.Equal(t, RunMetrics(c.m), b.metrics)
		})
	}
}
