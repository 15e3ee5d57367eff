package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/internal/clock"
	"github.com/luxeval/lux/internal/ctxtest"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waits are the channels the "wait" assertion of a test waits on, by name,
// each with its test's safety net.
var (
	waitsMu sync.Mutex
	waits   = map[string]wait{}
)

type wait struct{ ch, safety <-chan struct{} }

func addWait(t *testing.T) (string, chan struct{}) {
	t.Helper()
	waitsMu.Lock()
	defer waitsMu.Unlock()
	name := fmt.Sprintf("%s#%d", t.Name(), len(waits))
	ch := make(chan struct{})
	waits[name] = wait{ch, ctxtest.SafetyNet(t)}
	return name, ch
}

// waitPlugin is an assertion that passes once its channel is closed, and
// fails when that never happens before its test's safety net (the test
// then fails, rather than hangs).
var waitPlugin = &lux.AssertionPlugin{
	Type: "wait", Version: "1", Doc: "passes once the test lets it",
	Parse: func(raw json.RawMessage) (lux.Check, error) {
		var c struct {
			Name string `json:"name"`
		}
		if err := lux.DecodeConfig(raw, &c); err != nil {
			return nil, err
		}
		return assertion.CheckFunc(func(ctx context.Context, run *lux.Run) (lux.Result, error) {
			waitsMu.Lock()
			w := waits[c.Name]
			waitsMu.Unlock()
			select {
			case <-w.ch:
				return lux.Result{Passed: true, Score: 1}, nil
			case <-w.safety:
				return lux.Result{Passed: false, Comment: "waited until the test's safety net"}, nil
			}
		}), nil
	},
}

// At -j 1 the harness's work after an agent (here, grading) overlaps the
// next run's agent: the first run's grading passes only once the second
// run's agent has started. Run one at a time, it would wait until the
// test's safety net and fail.
func TestPipelineOverlapsGradingWithTheNextAgent(t *testing.T) {
	eachStart(t, func(t *testing.T, ref func(string) *lux.PluginRef) {
		reg := testRegistry(t)
		require.NoError(t, reg.RegisterAssertion(waitPlugin))
		name, secondStarted := addWait(t)
		var once sync.Once
		var agents, peak atomic.Int32
		scen := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
			n := agents.Add(1)
			defer agents.Add(-1)
			if n > peak.Load() {
				peak.Store(n)
			}
			if a.info.CaseID == "second" {
				once.Do(func() { close(secondStarted) })
			}
			return writeHello(ctx, a)
		})
		o := New(reg, Options{RunsRoot: filepath.Join(t.TempDir(), "runs"), Concurrency: 1})
		res, err := o.RunSuite(context.Background(), []*lux.Case{
			{ID: "first", Prompt: "p", Driver: ref(scen), Assertions: []lux.AssertionSpec{{Type: "wait", Config: map[string]any{"name": name}}}},
			{ID: "second", Prompt: "p", Driver: ref(scen), Assertions: []lux.AssertionSpec{{Type: "fixed", Config: map[string]any{"passed": true, "score": 1}}}},
		})
		require.NoError(t, err)
		assert.Equal(t, 2, res.Summary.Totals.Passed, "the first run's grading saw the second agent start")
		assert.Equal(t, int32(1), peak.Load(), "-j 1 never runs two agents at once")
	})
}

// -j N bounds the agents running at once, whatever the runs in flight.
func TestPipelineBoundsTheAgents(t *testing.T) {
	eachStart(t, func(t *testing.T, ref func(string) *lux.PluginRef) {
		var agents, peak atomic.Int32
		scen := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
			n := agents.Add(1)
			defer agents.Add(-1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			return writeHello(ctx, a)
		})
		o := newTestOrchestrator(t, Options{Concurrency: 2})
		cases := make([]*lux.Case, 12)
		for i := range cases {
			cases[i] = &lux.Case{ID: fmt.Sprintf("c%d", i), Prompt: "p", Driver: ref(scen),
				Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}}
		}
		res, err := o.RunSuite(context.Background(), cases)
		require.NoError(t, err)
		assert.Equal(t, 12, res.Summary.Totals.Passed)
		assert.LessOrEqual(t, peak.Load(), int32(2))
	})
}

// helloOnceReleased is the agent that says ready, waits for release, then
// writes hello.txt and is done.
func helloOnceReleased(release <-chan struct{}) scenario {
	return func(ctx context.Context, a *fakeAgent) error {
		if !a.ready(ctx) {
			return nil
		}
		select {
		case <-release:
		case <-ctx.Done():
			return nil
		}
		if err := a.write("hello.txt", "hello"); err != nil {
			return err
		}
		a.done(ctx, nil)
		return nil
	}
}

// A run waiting for its turn while another's agent runs is not started:
// its time limit, start time and duration hold none of the wait. The
// clock is advanced past the time limit while the second run waits; it
// still passes, and starts after the first agent ended.
func TestPipelineWaitIsNotInTheRunsTime(t *testing.T) {
	eachStart(t, func(t *testing.T, ref func(string) *lux.PluginRef) {
		release := make(chan struct{})
		blocking := addScenario(t, helloOnceReleased(release))
		quick := addScenario(t, writeHello)
		m := &clock.Manual{}
		ctx, cancel := context.WithTimeout(clock.With(context.Background(), m), time.Minute)
		defer cancel()
		o := newTestOrchestrator(t, Options{Concurrency: 1, RunTimeout: 10 * time.Second})
		hello := []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}
		type out struct {
			res *record.Suite
			err error
		}
		done := make(chan out, 1)
		go func() {
			res, err := o.RunSuite(ctx, []*lux.Case{
				{ID: "slow", Prompt: "p", Driver: ref(blocking), Assertions: hello},
				{ID: "quick", Prompt: "p", Driver: ref(quick), Assertions: hello},
			})
			done <- out{res, err}
		}()
		// The first run armed its time limit; the second waits for its turn
		// and arms none.
		require.NoError(t, m.WaitScheduled(ctx, 1))
		m.Advance(9 * time.Second)
		require.Equal(t, 1, m.Pending(), "only the running run's time limit is armed")
		m.Advance(0)
		close(release)
		r := <-done
		require.NoError(t, r.err)
		require.Equal(t, 2, r.res.Summary.Totals.Passed)
		first, _ := r.res.ItemRecord(0)
		second, _ := r.res.ItemRecord(1)
		require.NotNil(t, first.AgentEndedAt)
		assert.False(t, second.StartedAt.Before(*first.AgentEndedAt), "the second run starts once the first agent is gone")
	})
}

// A suite cancelled while runs wait for their turn starts none of them:
// they leave no record and nothing under .live, and are marked skipped.
func TestPipelineCancelStartsNoWaitingRun(t *testing.T) {
	eachStart(t, func(t *testing.T, ref func(string) *lux.PluginRef) {
		started := make(chan struct{})
		var once sync.Once
		blocking := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
			once.Do(func() { close(started) })
			<-ctx.Done()
			return nil
		})
		root := filepath.Join(t.TempDir(), "runs")
		o := newTestOrchestrator(t, Options{RunsRoot: root, Concurrency: 1})
		ctx, cancel := context.WithCancel(context.Background())
		cases := make([]*lux.Case, 5)
		for i := range cases {
			cases[i] = &lux.Case{ID: fmt.Sprintf("c%d", i), Prompt: "p", Driver: ref(blocking)}
		}
		go func() {
			<-started
			cancel()
		}()
		res, err := o.RunSuite(ctx, cases)
		require.ErrorIs(t, err, context.Canceled)
		var completed, skipped int
		for _, it := range res.Manifest.Items {
			switch it.Status {
			case record.ItemCompleted:
				completed++
			case record.ItemSkipped:
				skipped++
			}
		}
		assert.Equal(t, 1, completed, "only the run whose agent started is recorded")
		assert.Equal(t, 4, skipped)
		runs, err := filepath.Glob(filepath.Join(root, "c*", "*", "*"))
		require.NoError(t, err)
		assert.Len(t, runs, 1, "one run directory")
		caseDirs, err := filepath.Glob(filepath.Join(root, "c*"))
		require.NoError(t, err)
		assert.Equal(t, []string{filepath.Join(root, "c0")}, caseDirs, "a run prepared but not started leaves no directory")
		live, err := os.ReadDir(filepath.Join(root, record.LiveDir))
		if err == nil {
			assert.Empty(t, live, ".live holds nothing once the suite ended")
		}
	})
}

// The summary built from the records as written is the one built from
// the records read back from disk, and the one suite-summary.json holds.
func TestSuiteSummaryFromMemoryIsTheRecordsOnDisk(t *testing.T) {
	scen := addScenario(t, writeHello)
	crash := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		a.ready(ctx)
		a.emit(ctx, lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: "boom"}})
		return nil
	})
	o := newTestOrchestrator(t, Options{Concurrency: 2, Repetitions: 2})
	res, err := o.RunSuite(context.Background(), []*lux.Case{
		{ID: "pass", Prompt: "p", Driver: driverRef(scen), Cluster: "k",
			Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}},
		{ID: "fail", Prompt: "p", Driver: driverRef(scen),
			Assertions: []lux.AssertionSpec{{Type: "fixed", Config: map[string]any{"passed": false, "score": 0.25, "judge": 7}}}},
		{ID: "crash", Prompt: "p", Driver: driverRef(crash)},
	})
	require.NoError(t, err)
	require.Len(t, res.Written, 6)
	for i, w := range res.Written {
		require.NotNil(t, w, "item %d", i)
	}
	onDisk, err := record.ReadSuite(res.Dir)
	require.NoError(t, err)
	require.Empty(t, onDisk.Written)
	fromDisk := summarize(onDisk, res.Summary.Status)
	ignore := cmpopts.IgnoreFields(record.SuiteSummary{}, "GeneratedAt")
	assert.Empty(t, cmp.Diff(fromDisk, res.Summary, ignore), "in memory vs records read back")
	assert.Empty(t, cmp.Diff(onDisk.Summary, res.Summary, cmpopts.EquateEmpty()), "suite-summary.json vs in memory")
	for i := range res.Manifest.Items {
		fromDisk := onDisk.ItemBrief(i)
		require.NotNil(t, fromDisk, "item %d", i)
		assert.Empty(t, cmp.Diff(fromDisk, res.Written[i], cmp.AllowUnexported(record.RunBrief{})), "the brief of item %d", i)
		diskRow, err := onDisk.ItemRow(i, "d")
		require.NoError(t, err)
		memRow, err := res.ItemRow(i, "d")
		require.NoError(t, err)
		assert.Empty(t, cmp.Diff(diskRow, memRow), "the row of item %d", i)
	}
}

// Every run is reported started before it runs and finished after, by
// this process's runs and by another executor's alike.
func TestProgressStartsEachRunBeforeItRuns(t *testing.T) {
	scen := addScenario(t, writeHello)
	for _, remote := range []bool{false, true} {
		t.Run(fmt.Sprint("executor=", remote), func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "runs")
			var mu sync.Mutex
			var log []string
			note := func(s string) {
				mu.Lock()
				log = append(log, s)
				mu.Unlock()
			}
			opts := Options{RunsRoot: root, Concurrency: 2, Repetitions: 3, Progress: func(u Update) {
				switch u.Kind {
				case RunStarted:
					note(fmt.Sprint("started ", u.Index))
				case RunFinished:
					note(fmt.Sprint("finished ", u.Index))
				}
			}}
			if remote {
				opts.Executor = executorFunc(func(ctx context.Context, run *PlannedRun) (*record.Run, error) {
					note("executing " + run.Key[len(run.SuiteID)+1:])
					return ExecutePlanned(ctx, testRegistry(t), Options{RunsRoot: root}, run, nil)
				})
			}
			cases := []*lux.Case{{ID: "a", Prompt: "p", Driver: driverRef(scen)}, {ID: "b", Prompt: "p", Driver: driverRef(scen)}}
			_, err := New(testRegistry(t), opts).RunSuite(context.Background(), cases)
			require.NoError(t, err)
			at := map[string]int{}
			for i, s := range log {
				at[s] = i
			}
			for i := range 6 {
				started, ok := at[fmt.Sprint("started ", i)]
				require.True(t, ok, "item %d started", i)
				assert.Less(t, started, at[fmt.Sprint("finished ", i)], "item %d", i)
				if remote {
					assert.Less(t, started, at[fmt.Sprint("executing ", i)], "item %d is reported started before it is executed", i)
				}
			}
		})
	}
}

// suite.json is rewritten at most every manifestInterval, and no more
// often than twenty times what a rewrite takes, up to a second.
func TestManifestWaitGrowsWithTheManifest(t *testing.T) {
	for _, c := range []struct{ took, want time.Duration }{
		{0, manifestInterval},
		{time.Millisecond, manifestInterval},
		{10 * time.Millisecond, 200 * time.Millisecond},
		{time.Second, manifestMaxInterval},
	} {
		assert.Equal(t, c.want, manifestWait(c.took), "a write that took %s", c.took)
	}
}

// A driver that starts at the gate but fails before it reaches it (here:
// an unknown scenario) still has its run recorded, having taken its turn,
// and the run after it runs.
func TestGatedStartFailingBeforeTheGateIsRecorded(t *testing.T) {
	quick := addScenario(t, writeHello)
	o := newTestOrchestrator(t, Options{Concurrency: 1})
	hello := []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}
	res, err := o.RunSuite(context.Background(), []*lux.Case{
		{ID: "broken", Prompt: "p", Driver: gatedRef("no such scenario"), Assertions: hello},
		{ID: "quick", Prompt: "p", Driver: gatedRef(quick), Assertions: hello},
	})
	require.NoError(t, err)
	broken, _ := res.ItemRecord(0)
	require.NotNil(t, broken)
	assert.Equal(t, lux.ExitError, broken.ExitReason)
	assert.Equal(t, "start-failed", broken.Driver.AgentID)
	quickRun, _ := res.ItemRecord(1)
	require.NotNil(t, quickRun)
	assert.Equal(t, lux.ExitDone, quickRun.ExitReason)
	assert.False(t, quickRun.StartedAt.Before(broken.StartedAt))
	assert.Equal(t, 1, res.Summary.Totals.Passed)
}

// A run stopped while its agent waits at the gate has its answerer, made
// before the turn, closed: every answerer prepared is closed.
func TestGatedStartStoppedAtTheGateClosesItsAnswerer(t *testing.T) {
	name, tr := addTracker(t)
	started := make(chan struct{}, 8)
	blocking := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		started <- struct{}{}
		<-ctx.Done()
		return nil
	})
	o := newTestOrchestrator(t, Options{Concurrency: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cases := make([]*lux.Case, 3)
	for i := range cases {
		cases[i] = &lux.Case{ID: fmt.Sprintf("c%d", i), Prompt: "p", Driver: gatedRef(blocking),
			Answerer: &lux.PluginRef{Name: "table", Config: map[string]any{"track": name}}}
	}
	go func() {
		// The first agent runs, and the second run's answerer is prepared:
		// the second run is at its gate (or on its way there).
		<-started
		<-tr.prepared
		<-tr.prepared
		cancel()
	}()
	res, err := o.RunSuite(ctx, cases)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, int32(0), tr.open.Load(), "answerers prepared and never closed")
	var completed int
	for _, it := range res.Manifest.Items {
		if it.Status == record.ItemCompleted {
			completed++
		}
	}
	assert.Equal(t, 1, completed, "only the run whose agent started is recorded")
}

// A driver whose own deadline for its start passes while its agent waits
// at the gate fails its run, which is recorded, and the suite goes on: only
// a stopped suite discards a run at its gate.
func TestGatedStartDeadlineAtTheGateIsRecorded(t *testing.T) {
	release := make(chan struct{})
	blocking := addScenario(t, helloOnceReleased(release))
	quick := addScenario(t, writeHello)
	o := newTestOrchestrator(t, Options{Concurrency: 1})
	hello := []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}
	signal, hit := addSignal(t)
	impatient := gatedRef(quick)
	impatient.Config.(map[string]any)["startDeadline"] = signal
	go func() {
		<-hit
		close(release)
	}()
	res, err := o.RunSuite(context.Background(), []*lux.Case{
		{ID: "slow", Prompt: "p", Driver: gatedRef(blocking), Assertions: hello},
		{ID: "impatient", Prompt: "p", Driver: impatient, Assertions: hello},
	})
	require.NoError(t, err)
	second, _ := res.ItemRecord(1)
	require.NotNil(t, second, "the run whose start gave up at the gate is recorded")
	assert.Equal(t, lux.ExitError, second.ExitReason)
	assert.Equal(t, 1, res.Summary.Totals.Passed)
}
