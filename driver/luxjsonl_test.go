package driver_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

func ptr[T any](v T) *T { return &v }

func TestDecodeLuxJSONL(t *testing.T) {
	tests := []struct {
		name string
		line string
		want *lux.Event // nil: not part of the protocol
	}{
		{name: "ready", line: `{"type":"ready","agentId":"a","agentVersion":"1","model":"m","detail":{"k":1}}`,
			want: &lux.Event{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "a", AgentVersion: "1", Model: "m", Detail: map[string]any{"k": float64(1)}}}},
		{name: "ready without agentId", line: `{"type":"ready"}`},
		{name: "ready with a bad detail", line: `{"type":"ready","agentId":"a","detail":[1]}`},
		{name: "progress with a typed payload and ts", line: `{"type":"progress","id":"m1","kind":"agent-message","payload":{"text":"hi"},"ts":1700000000000}`,
			want: &lux.Event{Type: lux.EventProgress, Time: time.UnixMilli(1700000000000),
				Progress: &lux.Progress{ID: "m1", Kind: "agent-message", Message: &lux.Message{Text: "hi"}}}},
		{name: "progress tool call", line: `{"type":"progress","id":"tc-1","kind":"tool-call","payload":{"name":"Bash","input":{"cmd":"ls"},"toolUseId":"1"}}`,
			want: &lux.Event{Type: lux.EventProgress, Progress: &lux.Progress{ID: "tc-1", Kind: "tool-call",
				ToolCall: &lux.ToolCall{Name: "Bash", Input: map[string]any{"cmd": "ls"}, ToolUseID: "1"}}}},
		{name: "progress of another kind keeps its payload", line: `{"type":"progress","id":"x","kind":"custom-thing","payload":[1,2]}`,
			want: &lux.Event{Type: lux.EventProgress, Progress: &lux.Progress{ID: "x", Kind: "custom-thing", Payload: json.RawMessage(`[1,2]`)}}},
		{name: "progress without payload", line: `{"type":"progress","id":"x","kind":"k"}`,
			want: &lux.Event{Type: lux.EventProgress, Progress: &lux.Progress{ID: "x", Kind: "k"}}},
		{name: "progress without id", line: `{"type":"progress","kind":"k"}`},
		{name: "progress with a bad ts", line: `{"type":"progress","id":"x","kind":"k","ts":"yesterday"}`},
		{name: "ask", line: `{"type":"interrupt","kind":"ask","id":"q1","question":"Which?","context":{"options":["a","b"]}}`,
			want: &lux.Event{Type: lux.EventInterrupt, Interrupt: &lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "Which?",
				Context: map[string]any{"options": []any{"a", "b"}}}}},
		{name: "ask without question", line: `{"type":"interrupt","kind":"ask","id":"q1"}`},
		{name: "approve", line: `{"type":"interrupt","kind":"approve","id":"a1","request":{"tool":"rm"}}`,
			want: &lux.Event{Type: lux.EventInterrupt, Interrupt: &lux.Interrupt{Kind: lux.Approve, ID: "a1", Request: map[string]any{"tool": "rm"}}}},
		{name: "approve without request", line: `{"type":"interrupt","kind":"approve","id":"a1"}`},
		{name: "custom", line: `{"type":"interrupt","kind":"custom","id":"c1","payload":"p"}`,
			want: &lux.Event{Type: lux.EventInterrupt, Interrupt: &lux.Interrupt{Kind: lux.Custom, ID: "c1", Payload: "p"}}},
		{name: "unknown interrupt kind", line: `{"type":"interrupt","kind":"vote","id":"v","payload":1}`},
		{name: "done without summary", line: `{"type":"done"}`, want: &lux.Event{Type: lux.EventDone, Done: &lux.Done{}}},
		{name: "done with usage and cost", line: `{"type":"done","summary":{"usage":{"input":10,"output":5,"cacheRead":2,"cacheCreation":1},"cost":0.25,"turns":3,"note":"x"}}`,
			want: &lux.Event{Type: lux.EventDone, Done: &lux.Done{
				Usage:   &lux.TokenUsage{Input: 10, Output: 5, CacheRead: 2, CacheCreation: 1},
				CostUSD: ptr(0.25), Turns: 3,
				Summary: map[string]any{"usage": map[string]any{"input": float64(10), "output": float64(5), "cacheRead": float64(2), "cacheCreation": float64(1)},
					"cost": 0.25, "turns": float64(3), "note": "x"}}}},
		{name: "done with partial usage and a negative cost", line: `{"type":"done","summary":{"usage":{"output":7,"input":-1},"cost":-1}}`,
			want: &lux.Event{Type: lux.EventDone, Done: &lux.Done{Usage: &lux.TokenUsage{Output: 7},
				Summary: map[string]any{"usage": map[string]any{"output": float64(7), "input": float64(-1)}, "cost": float64(-1)}}}},
		{name: "done with a summary that is not an object", line: `{"type":"done","summary":"all good"}`,
			want: &lux.Event{Type: lux.EventDone, Done: &lux.Done{Summary: "all good"}}},
		{name: "done with empty usage", line: `{"type":"done","summary":{"usage":{}}}`,
			want: &lux.Event{Type: lux.EventDone, Done: &lux.Done{Summary: map[string]any{"usage": map[string]any{}}}}},
		{name: "error", line: `{"type":"error","reason":"no key"}`,
			want: &lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: "no key"}}},
		{name: "error with exit reason", line: `{"type":"error","exitReason":"max-interactions","reason":"too many"}`,
			want: &lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitMaxInteractions, Reason: "too many"}}},
		{name: "error with what was spent", line: `{"type":"error","reason":"API error 400","summary":{"usage":{"input":300,"output":10},"cost":0.001}}`,
			want: &lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: "API error 400",
				Usage: &lux.TokenUsage{Input: 300, Output: 10}, CostUSD: ptr(0.001)}}},
		{name: "error with an unknown exit reason", line: `{"type":"error","exitReason":"tired","reason":"x"}`},
		{name: "error without reason", line: `{"type":"error"}`},
		{name: "not JSON", line: `INFO starting up`},
		{name: "JSON but not an object", line: `[1,2,3]`},
		{name: "unknown type", line: `{"type":"status","ok":true}`},
		{name: "no type", line: `{"agentId":"a"}`},
		{name: "wrong field type", line: `{"type":"progress","id":7,"kind":"k"}`},
		{name: "truncated JSON", line: `{"type":"done"`},
		{name: "empty", line: ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := driver.DecodeLuxJSONL([]byte(tt.line))
			if tt.want == nil {
				assert.False(t, ok, "decoded %+v", got)
				return
			}
			require.True(t, ok)
			if diff := cmp.Diff(*tt.want, got); diff != "" {
				t.Errorf("event (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEncodeLuxJSONLAnswer(t *testing.T) {
	tests := []struct {
		name   string
		answer lux.Answer
		want   string
	}{
		{"ask", lux.Answer{Kind: lux.Ask, ID: "q1", Text: "blue"}, `{"type":"answer","id":"q1","text":"blue"}`},
		{"ask with empty text", lux.Answer{Kind: lux.Ask, ID: "q1"}, `{"type":"answer","id":"q1","text":""}`},
		{"approve", lux.Answer{Kind: lux.Approve, ID: "a1", Approved: true, Reason: "ok"}, `{"type":"approve","id":"a1","reason":"ok"}`},
		{"deny", lux.Answer{Kind: lux.Approve, ID: "a1"}, `{"type":"deny","id":"a1"}`},
		{"custom", lux.Answer{Kind: lux.Custom, ID: "c1", Payload: map[string]any{"action": "stop"}},
			`{"type":"customToolResponse","id":"c1","payload":{"action":"stop"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := driver.EncodeLuxJSONLAnswer(tt.answer)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
			assert.Equal(t, tt.want, string(got))
		})
	}
	_, err := driver.EncodeLuxJSONLAnswer(lux.Answer{Kind: "vote", ID: "v"})
	require.ErrorContains(t, err, `cannot answer a "vote" interrupt`)
}
