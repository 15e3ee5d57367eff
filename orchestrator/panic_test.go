package orchestrator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A plugin that panics fails its run, recorded as a failure of the
// harness phase it was in; the process, the suite and the record survive.
func TestPluginPanicFailsOnlyItsRun(t *testing.T) {
	tests := []struct {
		name       string
		driver     map[string]any
		answerer   map[string]any
		exit       lux.ExitReason
		phase      record.Phase
		verdict    string
		wantAgent  string // agent id in run.json
		wantEvents []string
	}{
		{name: "driver start", driver: map[string]any{"panic": "start"},
			exit: lux.ExitError, phase: "driver", verdict: "error", wantAgent: "start-failed"},
		{name: "driver next", driver: map[string]any{"panic": "next"},
			exit: lux.ExitError, phase: "driver", verdict: "error", wantAgent: "hostile"},
		{name: "driver respond", driver: map[string]any{"panic": "respond", "ask": true}, answerer: map[string]any{},
			exit: lux.ExitError, phase: "driver", verdict: "error", wantAgent: "hostile"},
		{name: "driver quiesce", driver: map[string]any{"panic": "quiesce"},
			exit: lux.ExitError, phase: "collection", verdict: "error", wantAgent: "hostile"},
		{name: "driver collect", driver: map[string]any{"panic": "collect"},
			exit: lux.ExitError, phase: "collection", verdict: "error", wantAgent: "hostile"},
		{name: "driver close", driver: map[string]any{"panic": "close"},
			exit: lux.ExitDone, phase: "close", verdict: "pass", wantAgent: "hostile"},
		{name: "answerer prepare", driver: map[string]any{"ask": true}, answerer: map[string]any{"panic": "prepare"},
			exit: lux.ExitError, phase: "answerer", verdict: "error", wantAgent: "not-started"},
		{name: "answerer answer", driver: map[string]any{"ask": true}, answerer: map[string]any{"panic": "answer"},
			exit: lux.ExitError, phase: "answerer", verdict: "error", wantAgent: "hostile"},
		{name: "answerer usage", driver: map[string]any{"ask": true}, answerer: map[string]any{"panic": "usage"},
			exit: lux.ExitDone, phase: "close", verdict: "pass", wantAgent: "hostile"},
		{name: "answerer close", driver: map[string]any{"ask": true}, answerer: map[string]any{"panic": "close"},
			exit: lux.ExitDone, phase: "close", verdict: "pass", wantAgent: "hostile"},
	}
	o := New(hostileRegistry(t), Options{RunsRoot: filepath.Join(t.TempDir(), "runs")})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := o.Run(context.Background(), hostileCase("panics", tt.driver, tt.answerer))
			require.NoError(t, err, "a plugin's panic is the run's outcome, not an error of Run")
			require.NotNil(t, res)
			assert.Equal(t, tt.exit, res.Metadata.ExitReason)
			require.NotNil(t, res.Metadata.OperationalFailure)
			assert.Equal(t, tt.phase, res.Metadata.OperationalFailure.Phase)
			assert.Contains(t, res.Metadata.OperationalFailure.Reason, "panic")
			assert.Contains(t, res.Metadata.OperationalFailure.Reason, "hostile")
			assert.Equal(t, tt.verdict, string(res.Verdict()))
			assert.Equal(t, tt.wantAgent, res.Metadata.Driver.AgentID)

			got := readBack(t, res)
			types := eventTypes(got.Events)
			require.NotEmpty(t, types)
			assert.Equal(t, "lifecycle:close", types[len(types)-1], "the record is complete")
			require.NotNil(t, got.Grading)

			stderr, err := os.ReadFile(filepath.Join(res.Dir, record.StderrFile))
			require.NoError(t, err, "the panic's stack is kept for the plugin's author")
			assert.Contains(t, string(stderr), "panicked: hostile")
			assert.Contains(t, string(stderr), "hostile_test.go", "the stack names the plugin's code")
		})
	}
}

func TestPluginPanicDoesNotStopTheSuite(t *testing.T) {
	o := New(hostileRegistry(t), Options{RunsRoot: filepath.Join(t.TempDir(), "runs"), Concurrency: 2, Repetitions: 2})
	healthy := &lux.Case{ID: "healthy", Prompt: "p", Driver: driverRef(addScenario(t, writeHello)),
		Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}}
	cases := []*lux.Case{
		hostileCase("next", map[string]any{"panic": "next"}, nil),
		healthy,
		hostileCase("answer", map[string]any{"ask": true}, map[string]any{"panic": "answer"}),
		{ID: "evaluate", Prompt: "p", Driver: &lux.PluginRef{Name: "hostile", Config: map[string]any{}},
			Assertions: []lux.AssertionSpec{{Type: "hostile", Config: map[string]any{"do": "panic"}}}},
	}
	res, err := o.RunSuite(context.Background(), cases)
	require.NoError(t, err)
	assert.Equal(t, record.SuiteFailed, res.Manifest.Status)
	byCase := map[string][]record.SuiteItem{}
	for _, it := range res.Manifest.Items {
		assert.Equal(t, record.ItemCompleted, it.Status, "%s #%d", it.CaseID, it.Repetition)
		assert.NotEmpty(t, it.RunDir, "%s #%d", it.CaseID, it.Repetition)
		byCase[it.CaseID] = append(byCase[it.CaseID], it)
	}
	for _, it := range byCase["healthy"] {
		assert.Equal(t, lux.ExitDone, it.ExitReason)
		assert.Equal(t, ptr(true), it.Passed)
	}
	for _, id := range []string{"next", "answer"} {
		for _, it := range byCase[id] {
			assert.Equal(t, lux.ExitError, it.ExitReason, id)
			assert.Contains(t, it.Error, "panic", id)
		}
	}
	for _, it := range byCase["evaluate"] {
		assert.Equal(t, lux.ExitDone, it.ExitReason)
		assert.Nil(t, it.Passed, "an assertion that panicked leaves no verdict")
	}
	assert.Equal(t, 2, res.Summary.Totals.Passed)
}

// A plugin that panics while its config is parsed or its runtime read is
// a problem of the case, reported by validation with its field path.
func TestPluginPanicWhileValidating(t *testing.T) {
	o := New(hostileRegistry(t), Options{RunsRoot: filepath.Join(t.TempDir(), "runs")})
	tests := []struct {
		name string
		c    *lux.Case
		path string
	}{
		{"driver parse", hostileCase("v", map[string]any{"panic": "parse"}, nil), "driver.config"},
		{"driver runtime", hostileCase("v", map[string]any{"panic": "runtime"}, nil), "driver"},
		{"answerer parse", hostileCase("v", map[string]any{}, map[string]any{"panic": "parse"}), "answerer.config"},
		{"assertion parse", &lux.Case{ID: "v", Prompt: "p", Driver: &lux.PluginRef{Name: "hostile"},
			Assertions: []lux.AssertionSpec{{Type: "hostile", Config: map[string]any{"do": "parse-panic"}}}}, "assertions[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := o.Validate(tt.c)
			require.Error(t, err)
			assert.True(t, errors.Is(err, lux.ErrInvalidCase), err.Error())
			assert.Contains(t, err.Error(), tt.path+": ")
			assert.Contains(t, err.Error(), "panic")

			_, err = o.RunSuite(context.Background(), []*lux.Case{tt.c})
			require.Error(t, err)
			assert.True(t, errors.Is(err, lux.ErrInvalidCase), err.Error())
		})
	}
}
