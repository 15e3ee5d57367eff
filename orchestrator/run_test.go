package orchestrator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newTestOrchestrator(t testing.TB, opts Options) *Orchestrator {
	t.Helper()
	if opts.RunsRoot == "" {
		opts.RunsRoot = filepath.Join(t.TempDir(), "runs")
	}
	return New(testRegistry(t), opts)
}

func eventTypes(events []lux.Event) []string {
	var out []string
	for _, e := range events {
		s := string(e.Type)
		switch e.Type {
		case lux.EventLifecycle:
			s += ":" + string(e.Stage)
		case lux.EventProgress:
			s += ":" + e.Progress.Kind
		}
		out = append(out, s)
	}
	return out
}

// readBack reads the run's record and checks it equals what Run returned.
func readBack(t *testing.T, res *record.Run) *record.Run {
	t.Helper()
	got, err := record.ReadRun(res.Dir, record.ReadOptions{Events: true})
	require.NoError(t, err)
	if diff := cmp.Diff(res.Metadata, got.Metadata, rawJSON); diff != "" {
		t.Errorf("run.json read back (-returned +read):\n%s", diff)
	}
	if diff := cmp.Diff(res.Grading, got.Grading, anyJSON); diff != "" {
		t.Errorf("grading.json read back (-returned +read):\n%s", diff)
	}
	if diff := cmp.Diff(res.Artifacts, got.Artifacts); diff != "" {
		t.Errorf("artifacts.json read back (-returned +read):\n%s", diff)
	}
	return got
}

func TestRunAnswersInterruptBeforeTheAgentContinues(t *testing.T) {
	scen := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		if !a.ready(ctx) || !a.say(ctx, "I need a color") {
			return nil
		}
		ans, ok := a.ask(ctx, lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "Which color?"})
		if !ok {
			return nil
		}
		if !a.tool(ctx, "t1", "Write", false) {
			return nil
		}
		if err := a.write("color.txt", ans.Text); err != nil {
			return err
		}
		a.done(ctx, &lux.TokenUsage{Input: 100, Output: 20})
		return nil
	})
	o := newTestOrchestrator(t, Options{Environment: map[string]any{"machine": "test"}})
	c := &lux.Case{
		ID: "color", Prompt: "ask for a color", Driver: driverRef(scen, lux.CanAsk), Requires: []lux.Capability{lux.CanAsk},
		Answerer:   &lux.PluginRef{Name: "table", Config: map[string]any{"answers": map[string]string{"Which color?": "blue"}, "tokens": 7}},
		Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "color.txt", "text": "blue"}}},
	}
	res, err := o.Run(context.Background(), c)
	require.NoError(t, err)
	assert.Equal(t, lux.ExitDone, res.Metadata.ExitReason)
	assert.Equal(t, record.VerdictPass, res.Verdict())
	assert.Equal(t, 1.0, *res.Grading.Score)
	assert.Equal(t, record.InterruptCounts{Ask: 1}, res.Metadata.InterruptCounts)
	assert.Equal(t, &lux.TokenUsage{Input: 100, Output: 20}, res.Metadata.Usage.Agent)
	assert.Equal(t, lux.TokenUsage{Input: 7}, res.Metadata.Usage.Answerer.TokenUsage)
	assert.Equal(t, record.ToolOutcomes{Reported: 1, Total: 1, Succeeded: 1}, res.Metadata.ToolCalls)
	assert.Equal(t, record.ArtifactStats{Count: 1, Bytes: 4}, res.Metadata.Artifacts)
	assert.Equal(t, "fake", res.Metadata.Driver.AgentID)
	assert.JSONEq(t, `{"machine":"test"}`, string(res.Metadata.Provenance.Environment))
	p := res.Metadata.Provenance
	for name, h := range map[string]string{"case": p.CaseHash, "assertions": p.AssertionsHash, "driverConfig": p.DriverConfigHash, "answererConfig": p.AnswererConfigHash, "evaluator": p.EvaluatorConfigHash} {
		assert.Len(t, h, 64, "%s hash", name)
	}
	assert.Equal(t, []lux.Capability{lux.CanAsk}, p.Runtime.Capabilities)

	got := readBack(t, res)
	want := []string{
		"lifecycle:prepare-answerer", "lifecycle:start-driver", "ready", "progress:agent-message",
		"interrupt", "responded", "progress:tool-call", "progress:tool-result", "done",
		"lifecycle:collect-start", "lifecycle:collect-end", "lifecycle:grade-start", "lifecycle:grade-end", "lifecycle:close",
	}
	if diff := cmp.Diff(want, eventTypes(got.Events)); diff != "" {
		t.Errorf("events.jsonl order (-want +got):\n%s", diff)
	}
	assert.Equal(t, "blue", got.Events[5].Answer.Text)
	assert.Equal(t, "color", got.Case.ID)
	for _, name := range []string{record.CaseFile, record.MetadataFile, record.EventsFile, record.GradingFile, record.ArtifactsFile} {
		fi, err := os.Stat(filepath.Join(res.Dir, name))
		require.NoError(t, err, name)
		assert.Equal(t, record.FilePerm, fi.Mode().Perm(), name)
	}
}

func TestRunFailsOnBadAnswers(t *testing.T) {
	asker := func(ctx context.Context, a *fakeAgent) error {
		if !a.ready(ctx) {
			return nil
		}
		if _, ok := a.ask(ctx, lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "Which color?"}); !ok {
			return nil
		}
		a.done(ctx, nil)
		return nil
	}
	tests := []struct {
		name     string
		answerer *lux.PluginRef
		sentinel error
		reason   string
	}{
		{"answer does not match", &lux.PluginRef{Name: "table", Config: map[string]any{"answers": map[string]string{"Which color?": "blue"}, "wrongId": true}}, lux.ErrAnswerMismatch, `interrupt ask "q1" answered with ask "not-q1"`},
		{"no answerer", nil, ErrNoAnswerer, `ask interrupt "q1" (Which color?) but the case has no answerer`},
		{"answerer fails", &lux.PluginRef{Name: "table", Config: map[string]any{"fail": true}}, lux.ErrUnanswered, `answerer "table" failed on ask interrupt "q1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newTestOrchestrator(t, Options{})
			c := &lux.Case{ID: "ask", Prompt: "p", Driver: driverRef(addScenario(t, asker), lux.CanAsk), Answerer: tt.answerer,
				Assertions: []lux.AssertionSpec{{Type: "fixed", Config: map[string]any{"score": 1, "passed": true}}}}
			res, err := o.Run(context.Background(), c)
			require.NoError(t, err)
			assert.Equal(t, lux.ExitError, res.Metadata.ExitReason)
			assert.True(t, errors.Is(res.Failure, tt.sentinel), "failure %v", res.Failure)
			require.NotNil(t, res.Metadata.OperationalFailure)
			assert.Equal(t, record.PhaseAnswerer, res.Metadata.OperationalFailure.Phase)
			assert.Contains(t, res.Metadata.Reason, tt.reason)
			assert.Equal(t, record.VerdictError, res.Verdict(), "the harness failed the run: no verdict on the agent")
			require.NotNil(t, res.Grading.Incomplete)
			assert.Equal(t, record.PhaseRun, res.Grading.Incomplete.Phase)
			got := readBack(t, res)
			types := eventTypes(got.Events)
			assert.NotContains(t, types, "responded")
			assert.NotContains(t, types, "done")
			assert.Contains(t, types, "error")
		})
	}
}

func TestGrading(t *testing.T) {
	fixedSpec := func(score float64, passed bool, extra map[string]any) lux.AssertionSpec {
		cfg := map[string]any{"score": score, "passed": passed}
		s := lux.AssertionSpec{Type: "fixed", Config: cfg}
		if w, ok := extra["weight"]; ok {
			s.Weight = w.(float64)
		}
		if th, ok := extra["threshold"]; ok {
			s.Threshold = th.(float64)
		}
		if e, ok := extra["err"]; ok {
			cfg["err"] = e
		}
		return s
	}
	tests := []struct {
		name       string
		specs      []lux.AssertionSpec
		wantPassed *bool
		wantScore  *float64
		perPassed  []bool
		incomplete record.Phase
	}{
		{"no assertions", nil, nil, nil, nil, ""},
		{"all pass", []lux.AssertionSpec{fixedSpec(1, true, nil), fixedSpec(1, true, nil)}, ptr(true), ptr(1.0), []bool{true, true}, ""},
		{"weighted mean", []lux.AssertionSpec{fixedSpec(1, true, map[string]any{"weight": 3.0}), fixedSpec(0, false, nil)}, ptr(false), ptr(0.75), []bool{true, false}, ""},
		{"threshold not reached", []lux.AssertionSpec{fixedSpec(0.6, true, map[string]any{"threshold": 0.7})}, ptr(false), ptr(0.6), []bool{false}, ""},
		{"threshold reached", []lux.AssertionSpec{fixedSpec(0.7, true, map[string]any{"threshold": 0.7})}, ptr(true), ptr(0.7), []bool{true}, ""},
		{"error means no verdict", []lux.AssertionSpec{fixedSpec(1, true, nil), fixedSpec(1, true, map[string]any{"err": "judge unreachable"})}, nil, nil, []bool{true, false}, "grading"},
		{"score out of range is an error", []lux.AssertionSpec{fixedSpec(1.5, true, nil)}, nil, nil, []bool{false}, "grading"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newTestOrchestrator(t, Options{})
			c := &lux.Case{ID: "g", Prompt: "p", Driver: driverRef(addScenario(t, writeHello)), Assertions: tt.specs}
			res, err := o.Run(context.Background(), c)
			require.NoError(t, err)
			assert.Equal(t, tt.wantPassed, res.Grading.Passed)
			if tt.wantScore == nil {
				assert.Nil(t, res.Grading.Score)
			} else {
				require.NotNil(t, res.Grading.Score)
				assert.InDelta(t, *tt.wantScore, *res.Grading.Score, 1e-9)
			}
			var per []bool
			for _, a := range res.Grading.Assertions {
				per = append(per, a.Passed)
			}
			assert.Equal(t, tt.perPassed, per)
			if tt.incomplete == "" {
				assert.Nil(t, res.Grading.Incomplete)
			} else {
				require.NotNil(t, res.Grading.Incomplete)
				assert.Equal(t, tt.incomplete, res.Grading.Incomplete.Phase)
			}
			readBack(t, res)
		})
	}
}

func TestGradingRecordsIDsAndJudgeUsage(t *testing.T) {
	o := newTestOrchestrator(t, Options{})
	c := &lux.Case{ID: "g", Prompt: "p", Driver: driverRef(addScenario(t, writeHello)), Assertions: []lux.AssertionSpec{
		{Type: "fixed", ID: "judge", Config: map[string]any{"score": 1, "passed": true, "judge": 30}},
		{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}},
	}}
	res, err := o.Run(context.Background(), c)
	require.NoError(t, err)
	assert.Equal(t, "judge", res.Grading.Assertions[0].ID)
	assert.Equal(t, "file-has:2", res.Grading.Assertions[1].ID)
	assert.Equal(t, "file-has path=hello.txt text=hello", res.Grading.Assertions[1].Name)
	assert.Equal(t, lux.TokenUsage{Output: 30}, res.Metadata.Usage.Judge.TokenUsage)
	assert.Equal(t, record.VerdictPass, res.Verdict())
}

func ptr[T any](v T) *T { return &v }

// An interrupt the driver did not declare it can take is a driver fault:
// the run fails before any answerer is asked.
func TestRunFailsOnUndeclaredInterrupt(t *testing.T) {
	asker := func(ctx context.Context, a *fakeAgent) error {
		if !a.ready(ctx) {
			return nil
		}
		if _, ok := a.ask(ctx, lux.Interrupt{Kind: lux.Approve, ID: "p1", Request: "rm -rf /"}); !ok {
			return nil
		}
		a.done(ctx, nil)
		return nil
	}
	o := newTestOrchestrator(t, Options{})
	c := &lux.Case{ID: "undeclared", Prompt: "p", Driver: driverRef(addScenario(t, asker), lux.CanAsk),
		Answerer:   &lux.PluginRef{Name: "table", Config: map[string]any{"answers": map[string]string{}}},
		Assertions: []lux.AssertionSpec{{Type: "fixed", Config: map[string]any{"score": 1, "passed": true}}}}
	res, err := o.Run(context.Background(), c)
	require.NoError(t, err)
	assert.Equal(t, lux.ExitError, res.Metadata.ExitReason)
	require.NotNil(t, res.Metadata.OperationalFailure)
	assert.Equal(t, record.PhaseDriver, res.Metadata.OperationalFailure.Phase)
	assert.Contains(t, res.Metadata.Reason, `driver "fake" sent approve interrupt "p1" but does not declare the "approve" capability`)
	assert.Equal(t, record.VerdictError, res.Verdict())
}
