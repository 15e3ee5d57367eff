package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/clock"
	"github.com/luxeval/lux/record"
)

// flakyDriver is the fake driver whose Start fails, for each scenario, as
// many times as startFailures says before it starts the agent.
var (
	flakyMu       sync.Mutex
	startFailures = map[string]int{}
	flakyDriver   = &lux.DriverPlugin{
		Name: "flaky", Doc: "the fake driver, whose Start fails first",
		Parse: func(raw json.RawMessage) (lux.DriverConfig, error) {
			cfg, err := fakeDriver.Parse(raw)
			if err != nil {
				return nil, err
			}
			return &flakyConfig{cfg.(*fakeConfig)}, nil
		},
	}
)

type flakyConfig struct{ *fakeConfig }

func (c *flakyConfig) Start(ctx context.Context, info lux.StartInfo) (lux.Session, error) {
	flakyMu.Lock()
	fail := startFailures[c.Scenario] > 0
	if fail {
		startFailures[c.Scenario]--
	}
	flakyMu.Unlock()
	if fail {
		return nil, errors.New("spawn agent: resource temporarily unavailable")
	}
	return c.fakeConfig.Start(ctx, info)
}

// flakyCase is a case whose agent writes out.txt and finishes, its driver
// failing to start failures times first.
func flakyCase(t *testing.T, failures int) *lux.Case {
	t.Helper()
	name := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		if !a.ready(ctx) {
			return nil
		}
		if err := a.write("out.txt", "ok"); err != nil {
			return err
		}
		a.done(ctx, &lux.TokenUsage{Input: 10, Output: 5})
		return nil
	})
	flakyMu.Lock()
	startFailures[name] = failures
	flakyMu.Unlock()
	return &lux.Case{ID: "flaky", Prompt: "p", Driver: &lux.PluginRef{Name: "flaky", Config: map[string]any{"scenario": name}},
		Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "out.txt", "text": "ok"}}}}
}

func retryRegistry(t *testing.T) *lux.Registry {
	t.Helper()
	reg := testRegistry(t)
	require.NoError(t, reg.RegisterDriver(flakyDriver))
	return reg
}

// runOnClock runs c with a manual clock, advancing it by step each time
// the run arms a timer beyond the first `armed`, and returns the result.
func runOnClock(t *testing.T, o *Orchestrator, c *lux.Case, backoffs ...time.Duration) (*record.Run, error) {
	t.Helper()
	m := &clock.Manual{}
	ctx, cancel := context.WithTimeout(clock.With(context.Background(), m), time.Minute)
	defer cancel()
	type out struct {
		res *record.Run
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := o.Run(ctx, c)
		done <- out{res, err}
	}()
	// Each attempt arms its run's time limit; each wait for a retry arms
	// one more timer: the backoff.
	for i, b := range backoffs {
		require.NoError(t, m.WaitScheduled(ctx, 2*(i+1)))
		m.Advance(b - time.Nanosecond)
		select {
		case <-done:
			t.Fatalf("retry %d started before its backoff of %s passed", i+1, b)
		default:
		}
		m.Advance(time.Nanosecond)
	}
	r := <-done
	return r.res, r.err
}

// A driver that fails to start once is retried after the backoff, on the
// context's clock; the record keeps both attempts, the first one's record
// under attempts/1, and only one run is found under the runs root.
func TestStartFailureIsRetried(t *testing.T) {
	root := t.TempDir()
	o := New(retryRegistry(t), Options{RunsRoot: root, Retries: 2, RetryBackoff: 10 * time.Second})
	res, err := runOnClock(t, o, flakyCase(t, 1), 10*time.Second)
	require.NoError(t, err)
	assert.Equal(t, lux.ExitDone, res.Metadata.ExitReason)
	assert.Equal(t, record.VerdictPass, res.Verdict())

	at := res.Metadata.Attempts
	require.Len(t, at, 2)
	assert.Equal(t, record.Attempt{Attempt: 1, Dir: "attempts/1", ExitReason: lux.ExitError, Phase: record.PhaseDriver,
		Failure: record.FailureInfrastructure, Cause: "start", Retried: true, BackoffMs: 10_000,
		StartedAt: at[0].StartedAt, EndedAt: at[0].EndedAt, Reason: at[0].Reason}, at[0])
	assert.Contains(t, at[0].Reason, "resource temporarily unavailable")
	assert.Equal(t, record.Attempt{Attempt: 2, ExitReason: lux.ExitDone, StartedAt: at[1].StartedAt, EndedAt: at[1].EndedAt}, at[1])

	var first record.Metadata
	require.NoError(t, record.ReadJSON(filepath.Join(res.Dir, "attempts", "1", record.MetadataFile), &first))
	assert.Equal(t, "start-failed", first.Driver.AgentID)
	var onDisk record.Metadata
	require.NoError(t, record.ReadJSON(filepath.Join(res.Dir, record.MetadataFile), &onDisk))
	assert.Len(t, onDisk.Attempts, 2, "run.json lists the attempts")
	runs, err := record.FindRuns(root)
	require.NoError(t, err)
	assert.Equal(t, []string{res.Dir}, runs, "an earlier attempt is not a run of its own")
	for _, dir := range []string{res.Dir, filepath.Join(res.Dir, "attempts", "1")} {
		state, err := record.VerifySeal(dir)
		require.NoError(t, err, "the rewritten run.json is sealed; the moved attempt keeps its seal")
		assert.Equal(t, record.SealVerified, state)
	}
}

// Retries stop at Options.Retries; the last attempt's failure is the run's.
func TestRetriesAreBounded(t *testing.T) {
	o := New(retryRegistry(t), Options{RunsRoot: t.TempDir(), Retries: 2, RetryBackoff: time.Second})
	res, err := runOnClock(t, o, flakyCase(t, 5), time.Second, 2*time.Second)
	require.NoError(t, err)
	assert.Equal(t, lux.ExitError, res.Metadata.ExitReason)
	require.Len(t, res.Metadata.Attempts, 3)
	last := res.Metadata.Attempts[2]
	assert.Equal(t, record.FailureInfrastructure, last.Failure)
	assert.False(t, last.Retried)
	assert.Equal(t, int64(2000), res.Metadata.Attempts[1].BackoffMs, "the backoff doubles")
}

// An agent that fails on its own is never retried, and neither is one
// that did something before an infrastructure error; a model API that
// answers overloaded before the agent did anything is retried.
func TestAgentFailuresAreNotRetried(t *testing.T) {
	for name, tc := range map[string]struct {
		agent   scenario
		failure record.FailureClass
		cause   string
	}{
		"gives up": {func(ctx context.Context, a *fakeAgent) error {
			a.ready(ctx)
			return errors.New("I cannot do this task")
		}, record.FailureAgent, "agent-error"},
		"worked then the API failed": {func(ctx context.Context, a *fakeAgent) error {
			if a.ready(ctx) && a.tool(ctx, "1", "Bash", false) {
				return errors.New("API Error: 529 overloaded_error")
			}
			return nil
		}, record.FailureAgent, "agent-worked"},
		"crashed after saying something": {func(ctx context.Context, a *fakeAgent) error {
			a.ready(ctx)
			a.say(ctx, "starting")
			return nil // ends without a terminal event
		}, record.FailureAgent, "agent-worked"},
	} {
		t.Run(name, func(t *testing.T) {
			o := New(retryRegistry(t), Options{RunsRoot: t.TempDir(), Retries: 3})
			res, err := runOnClock(t, o, &lux.Case{Prompt: "p", Driver: driverRef(addScenario(t, tc.agent))})
			require.NoError(t, err)
			require.Len(t, res.Metadata.Attempts, 1, "not retried")
			assert.Equal(t, tc.failure, res.Metadata.Attempts[0].Failure)
			assert.Equal(t, tc.cause, res.Metadata.Attempts[0].Cause)
			assert.False(t, res.Metadata.Attempts[0].Retried)
		})
	}
	t.Run("overloaded before anything", func(t *testing.T) {
		var calls int
		var mu sync.Mutex
		name := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
			mu.Lock()
			calls++
			n := calls
			mu.Unlock()
			a.ready(ctx)
			if n == 1 {
				return errors.New(`API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
			}
			a.done(ctx, nil)
			return nil
		})
		o := New(retryRegistry(t), Options{RunsRoot: t.TempDir(), Retries: 1, RetryBackoff: time.Second})
		res, err := runOnClock(t, o, &lux.Case{Prompt: "p", Driver: driverRef(name)}, time.Second)
		require.NoError(t, err)
		assert.Equal(t, lux.ExitDone, res.Metadata.ExitReason)
		require.Len(t, res.Metadata.Attempts, 2)
		assert.Equal(t, "overloaded", res.Metadata.Attempts[0].Cause)
	})
}

// Without Options.Retries a run is attempted once and run.json has no
// attempts.
func TestNoRetriesByDefault(t *testing.T) {
	o := New(retryRegistry(t), Options{RunsRoot: t.TempDir()})
	res, err := o.Run(context.Background(), flakyCase(t, 1))
	require.NoError(t, err)
	assert.Equal(t, lux.ExitError, res.Metadata.ExitReason)
	assert.Nil(t, res.Metadata.Attempts)
}

func TestClassify(t *testing.T) {
	for reason, want := range map[string]string{
		"API Error: 500 Internal server error":                              "server-error",
		"stream disconnected before completion":                             "connection",
		"request failed: dial tcp 127.0.0.1:9: connect: connection refused": "connection",
		"Rate limit reached for requests":                                   "rate-limited",
		"the file was not found":                                            "",
		"wrote 5000 lines":                                                  "",
	} {
		assert.Equal(t, want, infraCause(reason, nil), reason)
	}
	p := lux.NewProgress("", "api-error", nil)
	p.Payload = json.RawMessage(`{"text":"API Error","status":503}`)
	assert.Equal(t, "server-error", infraCause("claude reported an error", []lux.Event{{Type: lux.EventProgress, Progress: &p}}))
}
