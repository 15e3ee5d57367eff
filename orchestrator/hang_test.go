package orchestrator

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A plugin call that ignores its context cannot hold a run, and so a
// suite, for ever: once the run is cancelled, each such call is waited
// for at most Options.CleanupTimeout, then abandoned, and the record is
// completed. Close, which has no context, is always bounded so.
func TestHungPluginCallsAreAbandoned(t *testing.T) {
	releaseHangs(t)
	tests := []struct {
		name     string
		c        *lux.Case
		cancel   bool // cancel once the call hangs
		exit     lux.ExitReason
		phase    record.Phase
		abandons string // what the record says was abandoned
	}{
		{name: "driver start", c: hostileCase("h", map[string]any{"hang": "start"}, nil), cancel: true,
			exit: lux.ExitCancelled, phase: "cancel", abandons: `driver "hostile" Start`},
		{name: "driver next", c: hostileCase("h", map[string]any{"hang": "next"}, nil), cancel: true,
			exit: lux.ExitCancelled, phase: "cancel", abandons: `driver "hostile" Next`},
		{name: "driver respond", c: hostileCase("h", map[string]any{"hang": "respond", "ask": true}, map[string]any{}), cancel: true,
			exit: lux.ExitCancelled, phase: "cancel", abandons: `driver "hostile" Respond`},
		{name: "answerer prepare", c: hostileCase("h", map[string]any{}, map[string]any{"hang": "prepare"}), cancel: true,
			exit: lux.ExitCancelled, phase: "cancel", abandons: `answerer "hostile" Prepare`},
		{name: "answerer answer", c: hostileCase("h", map[string]any{"ask": true}, map[string]any{"hang": "answer"}), cancel: true,
			exit: lux.ExitCancelled, phase: "cancel", abandons: `answerer "hostile" Answer`},
		{name: "driver quiesce", c: hostileCase("h", map[string]any{"hang": "quiesce"}, nil), cancel: true,
			exit: lux.ExitCancelled, phase: "cancel", abandons: `driver "hostile" Quiesce`},
		{name: "driver collect", c: hostileCase("h", map[string]any{"hang": "collect"}, nil), cancel: true,
			exit: lux.ExitCancelled, phase: "cancel", abandons: `driver "hostile" Collect`},
		{name: "assertion evaluate", c: &lux.Case{ID: "h", Prompt: "p", Driver: &lux.PluginRef{Name: "hostile"},
			Assertions: []lux.AssertionSpec{{Type: "hostile", Config: map[string]any{"do": "hang"}}}}, cancel: true,
			exit: lux.ExitCancelled, phase: "cancel", abandons: `assertion hostile:1`},
		{name: "driver close", c: hostileCase("h", map[string]any{"hang": "close"}, nil),
			exit: lux.ExitDone, phase: "close", abandons: `driver "hostile" Close`},
		{name: "answerer close", c: hostileCase("h", map[string]any{"ask": true}, map[string]any{"hang": "close"}),
			exit: lux.ExitDone, phase: "close", abandons: `answerer "hostile" Close`},
	}
	reg, root := hostileRegistry(t), filepath.Join(t.TempDir(), "runs")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hangInBubble(t, func(t *testing.T) {
				// On the bubble's clock: a well-behaved call takes no time,
				// so none can be taken for hung, and the hung one is
				// abandoned after exactly this long.
				o := New(reg, Options{RunsRoot: root, CleanupTimeout: 10 * time.Second})
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				type outcome struct {
					res *record.Run
					err error
				}
				out := make(chan outcome, 1)
				go func() {
					res, err := o.Run(ctx, tt.c)
					out <- outcome{res, err}
				}()
				if tt.cancel {
					select {
					case <-hung:
					case <-time.After(time.Minute): // safety net only
						t.Fatal("the plugin call never started")
					}
					cancel()
				}
				from := time.Now() // the cancel, or the start of a run without one
				var got outcome
				select {
				case got = <-out:
				case <-time.After(time.Minute): // safety net only
					t.Fatal("Run did not return: a hung plugin call holds the run")
				}
				if tt.cancel {
					// The bubble's clock moved only while the hung call was
					// waited for: it is abandoned exactly CleanupTimeout
					// after the cancel.
					assert.Equal(t, 10*time.Second, time.Since(from))
				}
				if tt.cancel {
					require.Error(t, got.err)
					assert.True(t, errors.Is(got.err, context.Canceled), got.err.Error())
				} else {
					require.NoError(t, got.err)
				}
				res := got.res
				require.NotNil(t, res)
				assert.Equal(t, tt.exit, res.Metadata.ExitReason)
				require.NotNil(t, res.Metadata.OperationalFailure)
				assert.Equal(t, tt.phase, res.Metadata.OperationalFailure.Phase)
				assert.Contains(t, res.Metadata.OperationalFailure.Reason, tt.abandons)
				assert.Contains(t, res.Metadata.OperationalFailure.Reason, "abandoned")

				rec := readBack(t, res)
				types := eventTypes(rec.Events)
				require.NotEmpty(t, types)
				assert.Equal(t, "lifecycle:close", types[len(types)-1], "the record is complete")
			})
		})
	}
}

func TestHungPluginDoesNotHoldTheSuite(t *testing.T) {
	releaseHangs(t)
	reg, root := hostileRegistry(t), filepath.Join(t.TempDir(), "runs")
	hangInBubble(t, func(t *testing.T) {
		// On the bubble's clock, as in TestHungPluginCallsAreAbandoned.
		o := New(reg, Options{RunsRoot: root, Concurrency: 2, CleanupTimeout: 10 * time.Second})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			<-hung // both runs hang, one in Next, one in Answer
			<-hung
			cancel()
		}()
		done := make(chan struct{})
		var err error
		var res *record.Suite
		go func() {
			defer close(done)
			res, err = o.RunSuite(ctx, []*lux.Case{
				hostileCase("next", map[string]any{"hang": "next"}, nil),
				hostileCase("answer", map[string]any{"ask": true}, map[string]any{"hang": "answer"}),
			})
		}()
		select {
		case <-done:
		case <-time.After(time.Minute): // safety net only
			t.Fatal("RunSuite did not return after its context was cancelled")
		}
		require.Error(t, err)
		assert.True(t, errors.Is(err, context.Canceled))
		require.NotNil(t, res)
		for _, it := range res.Manifest.Items {
			assert.Equal(t, record.ItemCompleted, it.Status, it.CaseID)
			assert.Equal(t, lux.ExitCancelled, it.ExitReason, it.CaseID)
			assert.Contains(t, it.Error, "abandoned", it.CaseID)
		}
	})
}
