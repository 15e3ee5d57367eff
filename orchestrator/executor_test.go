package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jsonExecutor executes each planned run as a remote worker would: it
// sends it through JSON to ExecutePlanned with a registry of its own,
// recording under the same runs root.
type jsonExecutor struct {
	t      *testing.T
	reg    *lux.Registry
	root   string
	mu     sync.Mutex
	keys   []string
	queues []string
	events int
}

func (x *jsonExecutor) Execute(ctx context.Context, run *PlannedRun) (*record.Run, error) {
	data, err := json.Marshal(run)
	require.NoError(x.t, err)
	var got PlannedRun
	require.NoError(x.t, json.Unmarshal(data, &got))
	x.mu.Lock()
	x.keys = append(x.keys, got.Key)
	x.queues = append(x.queues, got.Queue)
	x.mu.Unlock()
	return ExecutePlanned(ctx, x.reg, Options{RunsRoot: x.root}, &got, &Execution{OnEvent: func(lux.Event) {
		x.mu.Lock()
		x.events++
		x.mu.Unlock()
	}})
}

func TestExecutorRunsASuiteThroughJSONAsLocally(t *testing.T) {
	scen := addScenario(t, writeHello)
	root := filepath.Join(t.TempDir(), "runs")
	cases := []*lux.Case{
		{ID: "pass", Prompt: "p", Driver: driverRef(scen),
			Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}},
		{ID: "fail", Prompt: "p", Driver: driverRef(scen),
			Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "bye"}}}},
	}
	env := map[string]string{"machine": "m1"}
	local, err := New(testRegistry(t), Options{RunsRoot: root, Repetitions: 2, Environment: env}).RunSuite(context.Background(), cases)
	require.NoError(t, err)

	x := &jsonExecutor{t: t, reg: testRegistry(t), root: root}
	remote, err := New(testRegistry(t), Options{RunsRoot: root, Repetitions: 2, Concurrency: 2, Environment: env, Executor: x, Queue: "big"}).
		RunSuite(context.Background(), cases)
	require.NoError(t, err)

	sid := remote.Manifest.SuiteID
	assert.ElementsMatch(t, []string{sid + "/0", sid + "/1", sid + "/2", sid + "/3"}, x.keys, "one key per item")
	assert.Equal(t, []string{"big", "big", "big", "big"}, x.queues, "each planned run carries Options.Queue")
	assert.Positive(t, x.events, "the worker's events were observed")
	for i, it := range remote.Manifest.Items {
		want := local.Manifest.Items[i]
		assert.Equal(t, want.RunVerdict, it.RunVerdict, "item %d", i)
		meta, g, err := record.ReadMetadata(filepath.Join(remote.Dir, filepath.FromSlash(it.RunDir)))
		require.NoError(t, err)
		lmeta, lg, err := record.ReadMetadata(filepath.Join(local.Dir, filepath.FromSlash(want.RunDir)))
		require.NoError(t, err)
		assert.Equal(t, sid, meta.SuiteID)
		assert.Equal(t, want.Repetition, meta.Repetition)
		p, lp := meta.Provenance, lmeta.Provenance
		assert.Empty(t, cmp.Diff([]string{lp.CaseHash, lp.AssertionsHash, lp.DriverConfigHash, lp.EvaluatorConfigHash, string(lp.Environment)},
			[]string{p.CaseHash, p.AssertionsHash, p.DriverConfigHash, p.EvaluatorConfigHash, string(p.Environment)}), "item %d measures the same", i)
		assert.Equal(t, lg.Passed, g.Passed)
	}
	assert.Equal(t, local.Summary.Totals, remote.Summary.Totals)
}

func TestExecutePlannedRefusesAnotherIdentity(t *testing.T) {
	scen := addScenario(t, writeHello)
	root := filepath.Join(t.TempDir(), "runs")
	var planned *PlannedRun
	x := executorFunc(func(ctx context.Context, run *PlannedRun) (*record.Run, error) {
		planned = run
		return nil, errors.New("not executed")
	})
	c := &lux.Case{ID: "c", Prompt: "p", Driver: driverRef(scen),
		Assertions: []lux.AssertionSpec{{Type: "fixed", Config: map[string]any{"passed": true}}}}
	_, _ = New(testRegistry(t), Options{RunsRoot: root, Executor: x}).Run(WithRunKey(context.Background(), "unit-7"), c)
	require.NotNil(t, planned)
	assert.Equal(t, "unit-7", planned.Key)

	// The worker's "fixed" assertion is another version: what grades
	// the run is not what was planned.
	reg := lux.NewRegistry()
	other := *fixedPlugin
	other.Version = "2"
	require.NoError(t, errors.Join(reg.RegisterDriver(fakeDriver), reg.RegisterAssertion(&other)))
	res, err := ExecutePlanned(context.Background(), reg, Options{RunsRoot: root}, planned, nil)
	assert.Nil(t, res)
	var mismatch *IdentityMismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.NotEqual(t, mismatch.Planned.EvaluatorConfigHash, mismatch.Rebuilt.EvaluatorConfigHash)
	assert.Contains(t, err.Error(), planned.Identity.EvaluatorConfigHash)
	assert.Contains(t, err.Error(), mismatch.Rebuilt.EvaluatorConfigHash)
	runs, _ := record.FindRuns(root)
	assert.Empty(t, runs, "nothing ran")
}

type executorFunc func(ctx context.Context, run *PlannedRun) (*record.Run, error)

func (f executorFunc) Execute(ctx context.Context, run *PlannedRun) (*record.Run, error) {
	return f(ctx, run)
}

// A run whose earlier attempt was lost with its worker keeps that
// attempt's partial directory as its first attempt: the runs root holds
// one run, and nothing is dropped.
func TestExecutePlannedKeepsLostAttemptsUnderTheRun(t *testing.T) {
	scen := addScenario(t, writeHello)
	root := filepath.Join(t.TempDir(), "runs")
	var planned *PlannedRun
	x := executorFunc(func(ctx context.Context, run *PlannedRun) (*record.Run, error) {
		planned = run
		return nil, errors.New("not executed")
	})
	c := &lux.Case{ID: "c", Prompt: "p", Driver: driverRef(scen),
		Assertions: []lux.AssertionSpec{{Type: "fixed", Config: map[string]any{"passed": true}}}}
	_, _ = New(testRegistry(t), Options{RunsRoot: root, Executor: x}).Run(WithRunKey(context.Background(), "unit-1"), c)
	require.NotNil(t, planned)

	started := time.Date(2026, 12, 3, 10, 0, 0, 7e6, time.UTC)
	lost, err := record.ReserveRunDir(root, "c", "fake", started)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(lost, "stderr.log"), []byte("partial"), 0o600))
	rel, err := filepath.Rel(root, lost)
	require.NoError(t, err)
	outside := t.TempDir()
	var dirs []string
	res, err := ExecutePlanned(context.Background(), testRegistry(t), Options{RunsRoot: root}, planned, &Execution{
		OnDir: func(d string) { dirs = append(dirs, d) },
		Lost: []string{filepath.ToSlash(rel), outside, filepath.Join(root, "c", "fake", record.Timestamp(started.Add(time.Hour))),
			filepath.Join(root, record.SuitesDir)},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{res.Dir}, dirs, "OnDir sees the run's directory")
	assert.NoDirExists(t, lost)
	assert.DirExists(t, outside, "a directory outside the runs root is never moved")
	assert.NoDirExists(t, filepath.Join(res.Dir, AttemptsDir, "2"), "nor one gone, nor one not named as a run")
	b, err := os.ReadFile(filepath.Join(res.Dir, AttemptsDir, "1", "stderr.log"))
	require.NoError(t, err, "the lost attempt is kept under the run")
	assert.Equal(t, "partial", string(b))
	meta, _, err := record.ReadMetadata(res.Dir)
	require.NoError(t, err)
	require.Len(t, meta.Attempts, 2)
	first := meta.Attempts[0]
	assert.Equal(t, record.Attempt{Attempt: 1, Dir: "attempts/1", StartedAt: started, EndedAt: started, ExitReason: lux.ExitError,
		Reason: first.Reason, Failure: record.FailureInfrastructure, Cause: CauseLost, Retried: true}, first)
	assert.Equal(t, 2, meta.Attempts[1].Attempt)
	assert.Equal(t, lux.ExitDone, meta.Attempts[1].ExitReason)
	runs, err := record.FindRuns(root)
	require.NoError(t, err)
	assert.Equal(t, []string{res.Dir}, runs, "the run is recorded once")
}
