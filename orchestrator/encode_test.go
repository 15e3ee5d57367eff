package orchestrator

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A plugin that hands over a value that does not encode as JSON (a
// channel in an event, a malformed raw payload, an assertion's detail)
// fails its run, or leaves its assertion without a verdict; the record
// is still complete and readable.
func TestUnencodablePluginValues(t *testing.T) {
	tests := []struct {
		name    string
		c       *lux.Case
		exit    lux.ExitReason
		phase   record.Phase // "" for no operational failure
		verdict string
		problem string
	}{
		{name: "ready detail", c: hostileCase("e", map[string]any{"bad": "ready"}, nil),
			exit: lux.ExitError, phase: "driver", verdict: "error", problem: "ready event does not encode as JSON"},
		{name: "progress payload", c: hostileCase("e", map[string]any{"bad": "progress"}, nil),
			exit: lux.ExitError, phase: "driver", verdict: "error", problem: "progress event does not encode as JSON"},
		{name: "interrupt context", c: hostileCase("e", map[string]any{"bad": "interrupt"}, map[string]any{}),
			exit: lux.ExitError, phase: "driver", verdict: "error", problem: "interrupt event does not encode as JSON"},
		{name: "done summary", c: hostileCase("e", map[string]any{"bad": "done"}, nil),
			exit: lux.ExitError, phase: "driver", verdict: "error", problem: "done event does not encode as JSON"},
		{name: "answer payload", c: hostileCase("e", map[string]any{"ask": true}, map[string]any{"bad": true}),
			exit: lux.ExitError, phase: "answerer", verdict: "error", problem: "responded event does not encode as JSON"},
		{name: "assertion detail", c: &lux.Case{ID: "e", Prompt: "p", Driver: &lux.PluginRef{Name: "hostile"},
			Assertions: []lux.AssertionSpec{{Type: "hostile", Config: map[string]any{"do": "bad-detail"}}}},
			exit: lux.ExitDone, verdict: "error", problem: "detail does not encode as JSON"},
	}
	o := New(hostileRegistry(t), Options{RunsRoot: filepath.Join(t.TempDir(), "runs")})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := o.Run(context.Background(), tt.c)
			require.NoError(t, err, "the record is complete")
			assert.Equal(t, tt.exit, res.Metadata.ExitReason)
			assert.Equal(t, tt.verdict, string(res.Verdict()))
			if tt.phase != "" {
				require.NotNil(t, res.Metadata.OperationalFailure)
				assert.Equal(t, tt.phase, res.Metadata.OperationalFailure.Phase)
				assert.Contains(t, res.Metadata.OperationalFailure.Reason, tt.problem)
			} else {
				require.NotNil(t, res.Grading.Incomplete)
				assert.Contains(t, res.Grading.Incomplete.Reason, tt.problem)
			}
			rec := readBack(t, res)
			types := eventTypes(rec.Events)
			require.NotEmpty(t, types)
			assert.Equal(t, "lifecycle:close", types[len(types)-1])
		})
	}
}
