package orchestrator

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSuiteWithConcurrencyAndRepetitions(t *testing.T) {
	var inFlight, peak atomic.Int32
	gate := make(chan struct{})
	var once sync.Once
	slowHello := func(ctx context.Context, a *fakeAgent) error {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		if n >= 3 {
			once.Do(func() { close(gate) }) // three runs overlapped: let everyone go
		}
		select {
		case <-gate:
		case <-ctx.Done():
			return nil
		}
		return writeHello(ctx, a)
	}
	scen := addScenario(t, slowHello)
	crash := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		a.ready(ctx)
		a.emit(ctx, lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: "boom"}})
		return nil
	})
	var updates []Update
	o := newTestOrchestrator(t, Options{Concurrency: 3, Repetitions: 3, Environment: map[string]string{"ci": "yes"},
		Progress: func(u Update) { updates = append(updates, u) }})
	cases := []*lux.Case{
		{ID: "pass", Prompt: "p", Driver: driverRef(scen), Cluster: "k1",
			Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}},
		{ID: "fail", Prompt: "p", Driver: driverRef(scen),
			Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "bye"}}}},
		{ID: "crash", Prompt: "p", Driver: driverRef(crash)},
	}
	res, err := o.RunSuite(context.Background(), cases)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, peak.Load(), int32(3), "runs overlapped")

	m := res.Manifest
	assert.Equal(t, record.SuiteFailed, m.Status)
	assert.Equal(t, 3, m.Concurrency)
	assert.Equal(t, 3, m.Repetitions)
	require.Len(t, m.Items, 9)
	for i, it := range m.Items {
		assert.Equal(t, record.ItemCompleted, it.Status, "item %d", i)
		assert.Equal(t, cases[i/3].ID, it.CaseID)
		assert.Equal(t, i%3+1, it.Repetition)
		require.NotEmpty(t, it.RunDir)
		run, err := record.ReadRun(filepath.Join(res.Dir, filepath.FromSlash(it.RunDir)))
		require.NoError(t, err)
		assert.Equal(t, m.SuiteID, run.Metadata.SuiteID)
		assert.Equal(t, it.Repetition, run.Metadata.Repetition)
		assert.Equal(t, it.CaseID, run.Metadata.CaseID)
	}
	assert.Equal(t, "k1", m.Items[0].Cluster)
	assert.Equal(t, lux.ExitError, m.Items[6].ExitReason)
	assert.Equal(t, "boom", m.Items[6].Error)

	s := res.Summary
	assert.Equal(t, record.Outcome{Attempts: 9, Completed: 9, Passed: 3, Failed: 6, Graded: 9, PassRate: 3.0 / 9}, s.Totals)
	require.Len(t, s.Cases, 3)
	assert.Equal(t, record.Outcome{Attempts: 3, Completed: 3, Passed: 3, Graded: 3, PassRate: 1}, s.Cases[0].Outcome)
	assert.Equal(t, record.Outcome{Attempts: 3, Completed: 3, Failed: 3, Graded: 3}, s.Cases[1].Outcome)
	assert.Equal(t, 9, s.Metrics["durationMs"].N)
	assert.Equal(t, 6, s.Metrics["agent.total"].N, "the crashing agent reported no usage")
	assert.Equal(t, 6, s.Metrics["score"].N)
	require.Len(t, s.Samples, 9)
	assert.Equal(t, s.Samples[0].IdentityHash, s.Samples[2].IdentityHash, "repetitions are the same measurement")
	assert.NotEqual(t, s.Samples[0].IdentityHash, s.Samples[3].IdentityHash, "different cases are not")

	// Records read back equal what was written.
	got, err := record.ReadSuite(res.Dir)
	require.NoError(t, err)
	if diff := cmp.Diff(&record.Suite{Dir: res.Dir, Manifest: res.Manifest, Summary: res.Summary, Seal: record.SealVerified}, got, rawJSON); diff != "" {
		t.Errorf("suite read back (-returned +read):\n%s", diff)
	}

	// Progress: serialized, every run started and finished.
	var started, finished int
	for _, u := range updates {
		switch u.Kind {
		case RunStarted:
			started++
		case RunFinished:
			finished++
		}
	}
	assert.Equal(t, 9, started)
	assert.Equal(t, 9, finished)
	assert.Equal(t, SuiteStarted, updates[0].Kind)
	assert.Equal(t, SuiteEnded, updates[len(updates)-1].Kind)
	assert.Equal(t, 9, updates[len(updates)-1].Done)
}

func TestSuiteCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	block := addScenario(t, func(actx context.Context, a *fakeAgent) error {
		a.ready(actx)
		cancel()
		<-actx.Done()
		return nil
	})
	o := newTestOrchestrator(t, Options{Repetitions: 4})
	res, err := o.RunSuite(ctx, []*lux.Case{{ID: "slow", Prompt: "p", Driver: driverRef(block)}})
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled))
	require.NotNil(t, res)
	assert.Equal(t, record.SuiteCancelled, res.Manifest.Status)
	require.NotNil(t, res.Manifest.EndedAt)
	assert.Equal(t, record.ItemCompleted, res.Manifest.Items[0].Status)
	assert.Equal(t, lux.ExitCancelled, res.Manifest.Items[0].ExitReason)
	for _, it := range res.Manifest.Items[1:] {
		assert.Equal(t, record.ItemSkipped, it.Status)
	}
	assert.Equal(t, record.Outcome{Attempts: 4, Completed: 1, Cancelled: 1, Pending: 3}, res.Summary.Totals)
	got, err := record.ReadSuite(res.Dir)
	require.NoError(t, err)
	assert.Equal(t, record.SuiteCancelled, got.Manifest.Status)
	assert.Equal(t, record.SuiteCancelled, got.Summary.Status)
}

func TestSuiteRejectsEmptyAndBadEnvironment(t *testing.T) {
	o := newTestOrchestrator(t, Options{})
	_, err := o.RunSuite(context.Background(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the suite has no cases")

	o = newTestOrchestrator(t, Options{Environment: func() {}})
	_, err = o.Run(context.Background(), &lux.Case{ID: "x", Prompt: "p", Driver: driverRef("x")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Options.Environment")
}
