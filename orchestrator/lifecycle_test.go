package orchestrator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCancelMidRunLeavesACompleteRecord(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	scen := addScenario(t, func(actx context.Context, a *fakeAgent) error {
		if !a.ready(actx) || !a.say(actx, "working") {
			return nil
		}
		_ = a.write("partial.txt", "half")
		cancel() // the user presses ^C while the agent works
		<-actx.Done()
		return nil
	})
	o := newTestOrchestrator(t, Options{})
	c := &lux.Case{ID: "slow", Prompt: "p", Driver: driverRef(scen),
		Assertions: []lux.AssertionSpec{{Type: "fixed", Config: map[string]any{"score": 1, "passed": true}}}}
	res, err := o.Run(ctx, c)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled))
	require.NotNil(t, res)
	assert.Equal(t, lux.ExitCancelled, res.Metadata.ExitReason)
	require.NotNil(t, res.Metadata.OperationalFailure)
	assert.Equal(t, record.PhaseCancel, res.Metadata.OperationalFailure.Phase)
	assert.Equal(t, record.VerdictCancelled, res.Verdict())
	assert.Equal(t, record.PhaseRun, res.Grading.Incomplete.Phase)
	assert.Equal(t, lux.ExitCancelled, res.Grading.Incomplete.ExitReason)
	assert.Equal(t, []lux.Artifact{{Path: "partial.txt", Size: 4}}, res.Artifacts, "evidence is still collected")

	got := readBack(t, res)
	types := eventTypes(got.Events)
	assert.Contains(t, types, "error")
	assert.Equal(t, "lifecycle:close", types[len(types)-1])
	for _, e := range got.Events {
		if e.Type == lux.EventError {
			assert.Equal(t, lux.ExitCancelled, e.Error.ExitReason)
		}
	}
}

func TestCancelBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := newTestOrchestrator(t, Options{})
	res, err := o.Run(ctx, &lux.Case{ID: "never", Prompt: "p", Driver: driverRef(addScenario(t, writeHello))})
	require.Error(t, err)
	assert.Equal(t, lux.ExitCancelled, res.Metadata.ExitReason)
	assert.Equal(t, "not-started", res.Metadata.Driver.AgentID)
	readBack(t, res)
}

func TestEventLogCapFailsTheRun(t *testing.T) {
	scen := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		if !a.ready(ctx) {
			return nil
		}
		for range 1000 {
			if !a.say(ctx, strings.Repeat("chatter ", 10)) {
				return nil
			}
		}
		a.done(ctx, nil)
		return nil
	})
	o := newTestOrchestrator(t, Options{MaxEvents: 20})
	res, err := o.Run(context.Background(), &lux.Case{ID: "chatty", Prompt: "p", Driver: driverRef(scen)})
	require.NoError(t, err)
	assert.Equal(t, lux.ExitError, res.Metadata.ExitReason)
	require.NotNil(t, res.Metadata.OperationalFailure)
	assert.Equal(t, record.PhaseTrace, res.Metadata.OperationalFailure.Phase)
	assert.Equal(t, "run trace exceeded the 20-event limit", res.Metadata.Reason)
	assert.True(t, errors.Is(res.Failure, record.ErrTraceLimit))

	events, err := record.ReadEvents(filepath.Join(res.Dir, record.EventsFile))
	require.NoError(t, err)
	assert.LessOrEqual(t, len(events), 20)
	last := events[len(events)-1]
	require.Equal(t, lux.EventError, last.Type)
	assert.Equal(t, "run trace exceeded the 20-event limit", last.Error.Reason)
	n := 0
	for _, e := range events {
		if e.Type == lux.EventError {
			n++
		}
	}
	assert.Equal(t, 1, n, "exactly one diagnostic line")
	// The rest of the record is complete.
	_, err = record.ReadRun(res.Dir)
	require.NoError(t, err)
}

func TestFixturesAreStagedAndHashed(t *testing.T) {
	fixtures := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(fixtures, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(fixtures, "src", "main.go"), []byte("package main\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(fixtures, "README.md"), []byte("# hi\n"), 0o644))
	seen := map[string]string{}
	scen := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		b, _ := os.ReadFile(filepath.Join(a.info.Workspace, "src", "main.go"))
		seen["main.go"] = string(b)
		return writeHello(ctx, a)
	})
	o := newTestOrchestrator(t, Options{})
	c := &lux.Case{ID: "fx", Prompt: "p", Driver: driverRef(scen), Fixtures: fixtures}
	res, err := o.Run(context.Background(), c)
	require.NoError(t, err)
	assert.Equal(t, "package main\n", seen["main.go"])
	h1 := res.Metadata.Provenance.FixturesHash
	assert.Len(t, h1, 64)
	assert.Equal(t, 3, res.Metadata.Artifacts.Count)

	res2, err := o.Run(context.Background(), c)
	require.NoError(t, err)
	assert.Equal(t, h1, res2.Metadata.Provenance.FixturesHash, "same tree, same hash")

	require.NoError(t, os.WriteFile(filepath.Join(fixtures, "README.md"), []byte("# changed\n"), 0o644))
	res3, err := o.Run(context.Background(), c)
	require.NoError(t, err)
	assert.NotEqual(t, h1, res3.Metadata.Provenance.FixturesHash)

	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(fixtures, "src", "evil")))
	_, err = o.Run(context.Background(), c)
	require.ErrorIs(t, err, lux.ErrInvalidCase, "refused before it runs, as staging would refuse it")
	assert.Contains(t, err.Error(), filepath.Join(fixtures, "src", "evil")+" is a symlink")
}

func TestAgentErrorAndDriverFailures(t *testing.T) {
	tests := []struct {
		name   string
		scen   scenario
		exit   lux.ExitReason
		phase  record.Phase
		reason string
	}{
		{"agent reports idle timeout", func(ctx context.Context, a *fakeAgent) error {
			a.ready(ctx)
			a.emit(ctx, lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitIdleTimeout, Reason: "no event for 1s"}})
			return nil
		}, lux.ExitIdleTimeout, "", "no event for 1s"},
		{"agent exits without a terminal event", func(ctx context.Context, a *fakeAgent) error {
			a.ready(ctx)
			return nil
		}, lux.ExitError, "driver", "without a done or error event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newTestOrchestrator(t, Options{})
			res, err := o.Run(context.Background(), &lux.Case{ID: "e", Prompt: "p", Driver: driverRef(addScenario(t, tt.scen)),
				Assertions: []lux.AssertionSpec{{Type: "fixed", Config: map[string]any{"score": 1, "passed": true}}}})
			require.NoError(t, err)
			assert.Equal(t, tt.exit, res.Metadata.ExitReason)
			assert.Contains(t, res.Metadata.Reason, tt.reason)
			if tt.phase == "" {
				assert.Nil(t, res.Metadata.OperationalFailure)
			} else {
				require.NotNil(t, res.Metadata.OperationalFailure)
				assert.Equal(t, tt.phase, res.Metadata.OperationalFailure.Phase)
			}
			want := "fail" // the agent ended the run
			if tt.phase != "" {
				want = "error" // the harness did: no verdict on the agent
			}
			assert.Equal(t, want, string(res.Verdict()))
			assert.Len(t, res.Grading.Assertions, 1, "assertions still run over the evidence")
			readBack(t, res)
		})
	}
}

func TestRunIDAndTimes(t *testing.T) {
	o := newTestOrchestrator(t, Options{})
	before := time.Now().UTC()
	res, err := o.Run(context.Background(), &lux.Case{ID: "api/login", Prompt: "p", Driver: driverRef(addScenario(t, writeHello))})
	require.NoError(t, err)
	m := res.Metadata
	assert.True(t, strings.HasPrefix(m.RunID, "api/login/fake/"), m.RunID)
	assert.Equal(t, filepath.Join(o.RunsRoot(), filepath.FromSlash(m.RunID)), res.Dir)
	assert.False(t, m.StartedAt.Before(before.Truncate(time.Millisecond)))
	require.NotNil(t, m.AgentEndedAt)
	assert.False(t, m.EndedAt.Before(*m.AgentEndedAt))
	assert.Equal(t, "api/login", m.CaseID)
}
