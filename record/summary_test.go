package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want MetricSummary
	}{
		{"empty", nil, MetricSummary{}},
		{"one", []float64{3}, MetricSummary{N: 1, Min: 3, Max: 3, Mean: 3, Median: 3, P90: 3}},
		{"even", []float64{4, 1, 3, 2}, MetricSummary{N: 4, Min: 1, Max: 4, Mean: 2.5, Median: 2.5, P90: 4}},
		{"ten", []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, MetricSummary{N: 10, Min: 1, Max: 10, Mean: 5.5, Median: 5.5, P90: 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Summarize(tt.in))
		})
	}
}

func TestRunMetricsUnavailableIsAbsent(t *testing.T) {
	m := sampleMetadata()
	got := RunMetrics(m)
	assert.Equal(t, 2000.0, got["durationMs"])
	assert.Equal(t, 420.0, got["agent.total"])
	assert.InDelta(t, 0.75, got["agent.cacheHitRate"], 1e-9)
	assert.Equal(t, 12.0, got["harness.total"])
	assert.Equal(t, 0.25, got["cost.usd"])
	assert.InDelta(t, 1.0/3, got["toolCalls.failureRate"], 1e-9)

	m.Usage = lux.Usage{}
	m.ToolCalls = ToolOutcomes{}
	got = RunMetrics(m)
	for _, k := range []string{"agent.total", "agent.input", "harness.total", "cost.usd", "toolCalls.failureRate"} {
		_, ok := got[k]
		assert.False(t, ok, "%s must be absent when unavailable", k)
	}
	m.Usage.Agent = &lux.TokenUsage{}
	_, ok := RunMetrics(m)["agent.total"]
	assert.True(t, ok, "zero reported usage is a measurement")
}

func TestSummaryBuilder(t *testing.T) {
	pass, fail := true, false
	meta := func(d time.Duration, agent *lux.TokenUsage) *Metadata {
		m := sampleMetadata()
		m.EndedAt = m.StartedAt.Add(d)
		m.Usage = lux.Usage{Agent: agent}
		return m
	}
	items := []SuiteItem{
		{CaseID: "a", Repetition: 1, Status: ItemCompleted, ExitReason: lux.ExitDone, Passed: &pass, RunDir: "../../a/1"},
		{CaseID: "a", Repetition: 2, Status: ItemCompleted, ExitReason: lux.ExitDone, Passed: &fail, RunDir: "../../a/2"},
		{CaseID: "b", Repetition: 1, Cluster: "k", Status: ItemCompleted, ExitReason: lux.ExitError, Passed: &fail},
		{CaseID: "b", Repetition: 2, Cluster: "k", Status: ItemCompleted, ExitReason: lux.ExitDone}, // ungraded
		{CaseID: "c", Repetition: 1, Status: ItemSkipped},
	}
	metas := []*Metadata{meta(time.Second, &lux.TokenUsage{Input: 10}), meta(3*time.Second, nil), nil, meta(2*time.Second, nil), nil}
	gradings := []*Grading{{Passed: &pass, Score: ptr(1.0)}, {Passed: &fail, Score: ptr(0.5)}, nil, nil, nil}
	b := NewSummaryBuilder("s1")
	for i, it := range items {
		b.Add(i, it, metas[i], gradings[i])
	}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	s := b.Build(SuiteCancelled, now)

	assert.Equal(t, Outcome{Attempts: 5, Completed: 4, Passed: 1, Failed: 2, Ungraded: 1, Pending: 1, Graded: 3, PassRate: 1.0 / 3}, s.Totals)
	require.Len(t, s.Cases, 3)
	assert.Equal(t, "a", s.Cases[0].CaseID)
	assert.Equal(t, Outcome{Attempts: 2, Completed: 2, Passed: 1, Failed: 1, Graded: 2, PassRate: 0.5}, s.Cases[0].Outcome)
	assert.Equal(t, "k", s.Cases[1].Cluster)
	assert.Equal(t, MetricSummary{N: 3, Min: 1000, Max: 3000, Mean: 2000, Median: 2000, P90: 3000}, s.Metrics["durationMs"])
	assert.Equal(t, 1, s.Metrics["agent.input"].N, "only runs that reported usage")
	assert.Equal(t, MetricSummary{N: 2, Min: 0.5, Max: 1, Mean: 0.75, Median: 0.75, P90: 1}, s.Metrics["score"])
	assert.Equal(t, 2, s.Cases[0].Metrics["score"].N)
	require.Len(t, s.Samples, 4)
	assert.Equal(t, 3, s.Samples[3].Index)
	assert.NotEmpty(t, s.Samples[0].IdentityHash)
	assert.Empty(t, s.Samples[2].IdentityHash, "no metadata, no identity")
	assert.Equal(t, 0.5, *s.Samples[1].Score)

	// A suite directory reads back equal.
	dir := t.TempDir()
	end := now.Add(time.Minute)
	manifest := &SuiteManifest{
		SchemaVersion: SchemaVersion, LuxVersion: lux.Version, SuiteID: "s1", StartedAt: now, EndedAt: &end,
		Status: SuiteCancelled, Concurrency: 2, Repetitions: 2, Environment: json.RawMessage(`{"machine":"ci"}`), Items: items,
	}
	require.NoError(t, WriteJSON(filepath.Join(dir, SuiteFile), manifest))
	require.NoError(t, WriteJSON(filepath.Join(dir, SuiteSummaryFile), s))
	got, err := ReadSuite(dir)
	require.NoError(t, err)
	if diff := cmp.Diff(&Suite{Dir: dir, Manifest: manifest, Summary: s, Seal: SealUnsealed}, got, rawJSON); diff != "" {
		t.Errorf("ReadSuite (-want +got):\n%s", diff)
	}
	assert.Equal(t, filepath.Join(dir, "..", "..", "a", "1"), got.RunDir(0))
	assert.Equal(t, "", got.RunDir(2))
}

func TestReadSuiteErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := ReadSuite(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), dir+" is not a suite directory")

	require.NoError(t, os.WriteFile(filepath.Join(dir, SuiteFile), []byte(`{"suiteId": "x", "items": [{"caseId"`), 0o600))
	_, err = ReadSuite(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, SuiteFile)+": truncated JSON")

	require.NoError(t, os.WriteFile(filepath.Join(dir, SuiteFile), []byte(`{"suiteId": "x", "items": [], "later": 1}`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, SuiteSummaryFile), []byte(`{"totals": 3}`), 0o600))
	_, err = ReadSuite(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, SuiteSummaryFile)+": totals must be")
}

func TestIdentityHash(t *testing.T) {
	base := IdentityHash(sampleMetadata())
	same := []struct {
		name   string
		mutate func(m *Metadata)
	}{
		{"run id", func(m *Metadata) { m.RunID = "other" }},
		{"times", func(m *Metadata) {
			m.StartedAt = m.StartedAt.Add(time.Hour)
			m.EndedAt = m.EndedAt.Add(time.Hour)
		}},
		{"repetition and suite", func(m *Metadata) { m.Repetition = 9; m.SuiteID = "s9" }},
		{"outcome and usage", func(m *Metadata) { m.ExitReason = lux.ExitError; m.Usage = lux.Usage{} }},
		{"candidate and subject", func(m *Metadata) { m.Provenance.CandidateID = "c2"; m.Provenance.SubjectHash = "s2" }},
		{"session id", func(m *Metadata) { m.Driver.Detail = map[string]any{"sessionId": "zzz", "mode": "fast"} }},
		{"environment whitespace", func(m *Metadata) { m.Provenance.Environment = json.RawMessage(`{ "image" : "golang:1.26" }`) }},
	}
	for _, tt := range same {
		t.Run("ignores "+tt.name, func(t *testing.T) {
			m := sampleMetadata()
			tt.mutate(m)
			assert.Equal(t, base, IdentityHash(m))
		})
	}
	differ := []struct {
		name   string
		mutate func(m *Metadata)
	}{
		{"case hash", func(m *Metadata) { m.Provenance.CaseHash = "c2" }},
		{"fixtures hash", func(m *Metadata) { m.Provenance.FixturesHash = "f2" }},
		{"evaluator", func(m *Metadata) { m.Provenance.EvaluatorConfigHash = "e2" }},
		{"command version", func(m *Metadata) { m.Provenance.Runtime.Commands[0].Version = "2.0" }},
		{"environment", func(m *Metadata) { m.Provenance.Environment = json.RawMessage(`{"image":"other"}`) }},
		{"git commit", func(m *Metadata) { m.Provenance.Source.Git.Commit = "def" }},
		{"agent version", func(m *Metadata) { m.Driver.AgentVersion = "2.0" }},
		{"answerer", func(m *Metadata) { m.Answerer.Name = "persona" }},
	}
	for _, tt := range differ {
		t.Run("depends on "+tt.name, func(t *testing.T) {
			m := sampleMetadata()
			tt.mutate(m)
			assert.NotEqual(t, base, IdentityHash(m))
		})
	}
	t.Run("dirty without snapshot matches nothing", func(t *testing.T) {
		a, b := sampleMetadata(), sampleMetadata()
		a.Provenance.Source.Git.Dirty, b.Provenance.Source.Git.Dirty = true, true
		b.StartedAt = b.StartedAt.Add(time.Second)
		assert.NotEqual(t, IdentityHash(a), IdentityHash(b))
		a.Provenance.Source.Git.WorkingTreeHash, b.Provenance.Source.Git.WorkingTreeHash = "w", "w"
		assert.Equal(t, IdentityHash(a), IdentityHash(b))
	})
}
