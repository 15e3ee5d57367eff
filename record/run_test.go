package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/digest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ptr[T any](v T) *T { return &v }

func sampleMetadata() *Metadata {
	start := time.Date(2025, 3, 4, 5, 6, 7, 123_000_000, time.UTC)
	agentEnd := start.Add(1500 * time.Millisecond)
	return &Metadata{
		SchemaVersion: SchemaVersion, LuxVersion: lux.Version, RunID: "hello/subprocess/x",
		CaseID: "hello", SuiteID: "s1", Repetition: 2,
		StartedAt: start, AgentEndedAt: &agentEnd, EndedAt: start.Add(2 * time.Second),
		ExitReason: lux.ExitDone,
		Driver:     DriverInfo{Name: "subprocess", Ready: lux.Ready{AgentID: "echo", AgentVersion: "1.0", Detail: map[string]any{"sessionId": "abc", "mode": "fast"}}},
		Answerer:   RunAnswerer{Name: "scripted"},
		Usage: lux.Usage{
			Agent: &lux.TokenUsage{Input: 100, Output: 20, CacheRead: 300}, AgentCostUSD: ptr(0.25),
			Answerer: lux.ModelUsage{TokenUsage: lux.TokenUsage{Input: 5}}, Judge: lux.ModelUsage{TokenUsage: lux.TokenUsage{Output: 7}},
		},
		InterruptCounts: InterruptCounts{Ask: 1},
		ToolCalls:       ToolOutcomes{Reported: 3, Total: 3, Succeeded: 2, Failed: 1},
		Artifacts:       ArtifactStats{Count: 2, Bytes: 42},
		Phases:          PhaseDurations{Agent: 1500, Collect: 3, Grading: 10},
		Provenance: Provenance{
			Source:      &Source{CasePath: "cases/hello.json", Git: &GitInfo{Commit: "abc123", Dirty: false}},
			Host:        Host{OS: "linux", Arch: "amd64", GoVersion: "go1.26"},
			Runtime:     RuntimeInfo{Driver: "subprocess", Commands: []CommandInfo{{Name: "echoagent", Path: "/bin/echoagent", Version: "1.0"}}, Capabilities: []lux.Capability{lux.CanAsk}},
			Environment: json.RawMessage(`{"image":"golang:1.26"}`),
			CaseHash:    "c", AssertionsHash: "a", FixturesHash: "f", DriverConfigHash: "d", AnswererConfigHash: "an", EvaluatorConfigHash: "e",
		},
	}
}

func sampleGrading() *Grading {
	return &Grading{
		SchemaVersion: SchemaVersion, Passed: ptr(false), Score: ptr(0.5),
		Assertions: []AssertionOutcome{
			{ID: "readme", Type: "file-exists", Name: "file-exists path=README.md", Passed: true, Score: 1, Weight: 1, DurationMs: 1, Detail: map[string]any{"size": 3.0}},
			{ID: "x", Type: "contains", Name: "contains", Passed: false, Score: 0, Weight: 1, Comment: "not found"},
		},
	}
}

// writeRun writes a complete run record the way the orchestrator does.
func writeRun(t *testing.T, dir string) *Run {
	t.Helper()
	c := &CaseRecord{Case: lux.Case{
		ID: "hello", Prompt: "write hello.txt", Driver: &lux.PluginRef{Name: "subprocess", Config: json.RawMessage(`{"command":"echoagent"}`)},
		Assertions: []lux.AssertionSpec{{Type: "file-exists", ID: "readme", Config: map[string]any{"path": "README.md"}}},
		Tags:       []string{"smoke"},
	}, CasePath: "cases/hello.json"}
	want := &Run{
		Dir: dir, Case: c, Metadata: sampleMetadata(), Grading: sampleGrading(),
		Artifacts: []lux.Artifact{{Path: "hello.txt", Size: 5, SHA256: "ab"}, {Path: "sub/x", Size: 37}},
		Events: []lux.Event{
			{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "echo"}},
			{Type: lux.EventDone, Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), Done: &lux.Done{}},
		},
	}
	require.NoError(t, WriteJSON(filepath.Join(dir, CaseFile), c))
	require.NoError(t, WriteJSON(filepath.Join(dir, MetadataFile), want.Metadata))
	require.NoError(t, WriteJSON(filepath.Join(dir, GradingFile), want.Grading))
	require.NoError(t, WriteJSON(filepath.Join(dir, ArtifactsFile), want.Artifacts))
	log, err := CreateEventLog(filepath.Join(dir, EventsFile), LogOptions{})
	require.NoError(t, err)
	for _, e := range want.Events {
		require.NoError(t, log.Append(e))
	}
	require.NoError(t, log.Close())
	return want
}

// rawJSON compares raw JSON by its canonical form: indentation may change.
var rawJSON = cmp.Transformer("rawJSON", func(r json.RawMessage) string {
	b, err := digest.CanonicalJSON(r)
	if err != nil {
		return err.Error()
	}
	return string(b)
})

// caseJSON compares cases by their canonical JSON: configs come back raw.
var caseJSON = cmp.Transformer("caseJSON", func(c *CaseRecord) string {
	b, err := digest.CanonicalJSON(c)
	if err != nil {
		return err.Error()
	}
	return string(b)
})

func TestReadRunEqualsWhatWasWritten(t *testing.T) {
	dir := t.TempDir()
	want := writeRun(t, dir)
	want.Seal = SealUnsealed // written without a key

	got, err := ReadRun(dir)
	require.NoError(t, err)
	assert.Nil(t, got.Events, "events are not loaded by default")
	wantNoEvents := *want
	wantNoEvents.Events = nil
	if diff := cmp.Diff(&wantNoEvents, got, caseJSON, rawJSON); diff != "" {
		t.Errorf("ReadRun (-want +got):\n%s", diff)
	}
	assert.Equal(t, "cases/hello.json", got.Case.Path)

	full, err := ReadRun(dir, ReadOptions{Events: true})
	require.NoError(t, err)
	if diff := cmp.Diff(want, full, caseJSON, rawJSON); diff != "" {
		t.Errorf("ReadRun with events (-want +got):\n%s", diff)
	}
	ev := full.Evidence()
	assert.Equal(t, filepath.Join(dir, ArtifactsDir), ev.Workspace)
	assert.Equal(t, "hello", ev.Case.ID)
}

func TestReadRunToleratesUnknownFields(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir)
	var m map[string]any
	require.NoError(t, ReadJSON(filepath.Join(dir, MetadataFile), &m))
	m["fieldFromTheFuture"] = map[string]any{"x": 1}
	m["usage"].(map[string]any)["newCounter"] = 3
	require.NoError(t, WriteJSON(filepath.Join(dir, MetadataFile), m))
	require.NoError(t, os.WriteFile(filepath.Join(dir, EventsFile), []byte(`{"type":"ready","agentId":"a","newField":true}`+"\n"), 0o600))

	got, err := ReadRun(dir, ReadOptions{Events: true})
	require.NoError(t, err)
	assert.Equal(t, sampleMetadata().Usage, got.Metadata.Usage)
	assert.Equal(t, "a", got.Events[0].Ready.AgentID)
}

func TestReadRunErrorsNameThePath(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		data  string
		want  string
		noDir bool
	}{
		{"truncated run.json", MetadataFile, `{"schemaVersion": 1, "caseId": "he`, "truncated JSON", false},
		{"corrupt grading.json", GradingFile, `{"casePassed": tru}`, "corrupt JSON at byte", false},
		{"wrong shape", MetadataFile, `{"interruptCounts": {"ask": "one"}}`, "interruptCounts.ask must be int, got JSON string", false},
		{"empty artifacts.json", ArtifactsFile, ``, "empty file", false},
		{"corrupt case.json", CaseFile, `[`, "truncated JSON", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeRun(t, dir)
			path := filepath.Join(dir, tt.file)
			require.NoError(t, os.WriteFile(path, []byte(tt.data), 0o600))
			_, err := ReadRun(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), path)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	t.Run("not a run directory", func(t *testing.T) {
		dir := t.TempDir()
		_, err := ReadRun(dir)
		require.Error(t, err)
		assert.Contains(t, err.Error(), dir+" is not a run directory: it has no run.json")
	})
	t.Run("missing directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "gone")
		_, err := ReadRun(dir)
		require.Error(t, err)
		assert.Contains(t, err.Error(), dir)
	})
	t.Run("a file, not a directory", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "f")
		require.NoError(t, os.WriteFile(path, nil, 0o600))
		_, err := ReadRun(path)
		require.Error(t, err)
		assert.Contains(t, err.Error(), path+" is not a run directory")
	})
}

func TestReadRunWithoutOptionalFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, WriteJSON(filepath.Join(dir, MetadataFile), sampleMetadata()))
	got, err := ReadRun(dir, ReadOptions{Events: true})
	require.NoError(t, err)
	assert.Nil(t, got.Grading)
	assert.Nil(t, got.Case)
	assert.Empty(t, got.Events)
}
