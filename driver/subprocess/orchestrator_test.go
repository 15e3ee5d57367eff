package subprocess_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/scripted"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// Through the orchestrator, the scripted answerer answers the agent's
// questions and approvals; each answer reaches the agent on stdin in the
// lux-jsonl form (the fake agent echoes what it read as progress), before
// the agent goes on.
func TestInterruptsAnsweredByTheScriptedAnswerer(t *testing.T) {
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
	require.NoError(t, reg.RegisterAnswerer(scripted.Plugin()))
	require.NoError(t, assertion.Register(reg))
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: filepath.Join(t.TempDir(), "runs")})

	tests := []struct {
		name     string
		scenario string
		rules    string
		want     map[string]string // answer id → the line the agent read
		counts   record.InterruptCounts
	}{
		{
			name:     "ask",
			scenario: "ask",
			rules:    `[{"match": "(?i)color", "answer": "blue"}]`,
			want:     map[string]string{"q1": `{"id":"q1","text":"blue","type":"answer"}`},
			counts:   record.InterruptCounts{Ask: 1},
		},
		{
			name:     "approve, deny and custom",
			scenario: "approve",
			rules: `[
			  {"kind": "approve", "match": "rm -rf", "approve": false, "reason": "never delete"},
			  {"kind": "approve", "default": true, "approve": true},
			  {"kind": "custom", "default": true, "payload": {"action": "stop"}}
			]`,
			want: map[string]string{
				"a1": `{"id":"a1","type":"approve"}`,
				"a2": `{"id":"a2","reason":"never delete","type":"deny"}`,
				"c1": `{"id":"c1","payload":{"action":"stop"},"type":"customToolResponse"}`,
			},
			counts: record.InterruptCounts{Approve: 2, Custom: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &lux.Case{
				ID: tt.scenario, Prompt: "p",
				Driver:     &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{"command": fakeAgent, "args": []string{tt.scenario}}},
				Answerer:   &lux.PluginRef{Name: scripted.Name, Config: json.RawMessage(`{"rules": ` + tt.rules + `}`)},
				Assertions: []lux.AssertionSpec{assertion.RunSucceeded()},
			}
			res, err := o.Run(context.Background(), c)
			require.NoError(t, err)
			require.Equal(t, record.VerdictPass, res.Verdict(), "reason: %s", res.Metadata.Reason)
			require.Equal(t, tt.counts, res.Metadata.InterruptCounts)

			events, err := record.ReadEvents(filepath.Join(res.Dir, record.EventsFile))
			require.NoError(t, err)
			got := map[string]string{}
			var order []string
			for _, e := range events {
				switch {
				case e.Type == lux.EventInterrupt:
					order = append(order, "interrupt "+e.Interrupt.ID)
				case e.Type == lux.EventResponded:
					order = append(order, "responded "+e.Answer.ID)
				case e.Type == lux.EventProgress && e.Progress.Kind == "answer-received":
					id := e.Progress.ID[len("got-"):]
					order = append(order, "received "+id)
					var v any
					require.NoError(t, json.Unmarshal(e.Progress.Payload, &v))
					b, _ := json.Marshal(v)
					got[id] = string(b)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answers the agent read (-want +got):\n%s", diff)
			}
			// Each interrupt is answered, and the answer read, before the next.
			var wantOrder []string
			for _, id := range []string{"q1", "a1", "a2", "c1"} {
				if _, ok := tt.want[id]; ok {
					wantOrder = append(wantOrder, "interrupt "+id, "responded "+id, "received "+id)
				}
			}
			if diff := cmp.Diff(wantOrder, order); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
		})
	}
}
