package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"

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
	return ExecutePlanned(ctx, x.reg, Options{RunsRoot: x.root}, &got, func(lux.Event) {
		x.mu.Lock()
		x.events++
		x.mu.Unlock()
	})
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
