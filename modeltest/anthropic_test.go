package modeltest_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/modeltest"
)

func TestAnthropicStream(t *testing.T) {
	srv := modeltest.Start(t, modeltest.Script{{
		Thinking: "plan",
		Text:     "I'll create the file.",
		ToolCalls: []modeltest.ToolCall{
			{Name: "Write", Input: map[string]any{"file_path": "hello.txt", "content": "Hello\n"}},
			{ID: "toolu_given", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)},
		},
		Usage: modeltest.Usage{InputTokens: 1000, OutputTokens: 50, CacheReadTokens: 900, CacheCreationTokens: 7},
	}})

	status, ctype, body, err := post(t, srv, "/v1/messages?beta=true", anthropicBody(true, msg("user", "hi")))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "text/event-stream", ctype)
	events := parseSSE(t, body)

	wantNames := []string{
		"message_start",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop", // thinking + signature
		"content_block_start", "content_block_delta", "content_block_stop", // text
		"content_block_start", "content_block_delta", "content_block_stop", // Write
		"content_block_start", "content_block_delta", "content_block_stop", // Bash
		"message_delta", "message_stop",
	}
	if diff := cmp.Diff(wantNames, eventNames(events)); diff != "" {
		t.Fatalf("event names (-want +got):\n%s", diff)
	}
	for _, e := range events {
		assert.Equal(t, e.Name, e.Data["type"], "the data's type names the event")
	}

	start := events[0].Data["message"]
	assert.Equal(t, "claude-test", dig(start, "model"), "the model is echoed")
	assert.Equal(t, "assistant", dig(start, "role"))
	assert.Equal(t, map[string]any{
		"input_tokens": 1000.0, "output_tokens": 0.0,
		"cache_read_input_tokens": 900.0, "cache_creation_input_tokens": 7.0,
	}, dig(start, "usage"))

	assert.Equal(t, "thinking_delta", dig(events[2].Data, "delta", "type"))
	assert.Equal(t, "plan", dig(events[2].Data, "delta", "thinking"))
	assert.Equal(t, "signature_delta", dig(events[3].Data, "delta", "type"))
	assert.Equal(t, "I'll create the file.", dig(events[6].Data, "delta", "text"))

	assert.Equal(t, "tool_use", dig(events[8].Data, "content_block", "type"))
	assert.Equal(t, "Write", dig(events[8].Data, "content_block", "name"))
	assert.Equal(t, "toolu_modeltest_0_0", dig(events[8].Data, "content_block", "id"))
	assert.Equal(t, 2.0, dig(events[8].Data, "index"))
	partial, _ := dig(events[9].Data, "delta", "partial_json").(string)
	assert.JSONEq(t, `{"file_path":"hello.txt","content":"Hello\n"}`, partial)
	assert.Equal(t, "toolu_given", dig(events[11].Data, "content_block", "id"))
	partial, _ = dig(events[12].Data, "delta", "partial_json").(string)
	assert.JSONEq(t, `{"command":"ls"}`, partial)

	assert.Equal(t, "tool_use", dig(events[14].Data, "delta", "stop_reason"))
	assert.Equal(t, 50.0, dig(events[14].Data, "usage", "output_tokens"))
}

func TestAnthropicNonStreaming(t *testing.T) {
	srv := modeltest.Start(t, modeltest.Script{
		{ToolCalls: []modeltest.ToolCall{{Name: "Write", Input: map[string]any{"file_path": "a"}}}},
		{Text: "done", Usage: modeltest.Usage{InputTokens: 3, OutputTokens: 4}},
	})
	history := []map[string]any{
		msg("user", "hi"),
		msg("assistant", []any{map[string]any{"type": "tool_use", "id": "toolu_modeltest_0_0", "name": "Write", "input": map[string]any{}}}),
		msg("user", []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_modeltest_0_0", "content": "ok"}}),
	}
	status, ctype, body, err := post(t, srv, "/prefix/v1/messages", anthropicBody(false, history...))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "application/json", ctype)
	var got map[string]any
	require.NoError(t, json.Unmarshal(body, &got))
	want := map[string]any{
		"id": "msg_modeltest_1", "type": "message", "role": "assistant", "model": "claude-test",
		"content":     []any{map[string]any{"type": "text", "text": "done"}},
		"stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens": 3.0, "output_tokens": 4.0,
			"cache_read_input_tokens": 0.0, "cache_creation_input_tokens": 0.0,
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
}

func TestAnthropicTurnChoice(t *testing.T) {
	text := func(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }
	tests := []struct {
		name     string
		messages []map[string]any
		want     int
	}{
		{"first request", []map[string]any{msg("user", "go")}, 0},
		{"system message in history", []map[string]any{msg("user", "go"), msg("system", "env")}, 0},
		{"after one response", []map[string]any{msg("user", "go"), msg("assistant", text("a")), msg("user", text("r"))}, 1},
		{"split assistant messages count once", []map[string]any{
			msg("user", "go"), msg("assistant", text("a")), msg("system", "note"), msg("assistant", text("b")), msg("user", "r"),
		}, 1},
		{"second user prompt", []map[string]any{
			msg("user", "go"), msg("assistant", text("a")), msg("user", "r"), msg("assistant", text("b")), msg("user", "next"),
		}, 2},
	}
	script := modeltest.Script{{Text: "t0"}, {Text: "t1"}, {Text: "t2"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.Start(t, script)
			for attempt := 1; attempt <= 2; attempt++ { // a retry gets the same turn
				status, _, body, err := post(t, srv, "/v1/messages", anthropicBody(false, tt.messages...))
				require.NoError(t, err)
				require.Equal(t, http.StatusOK, status, "%s", body)
				var got map[string]any
				require.NoError(t, json.Unmarshal(body, &got))
				assert.Equal(t, script[tt.want].Text, dig(got, "content", 0, "text"))
			}
			reqs := srv.Requests()
			require.Len(t, reqs, 2)
			for i, r := range reqs {
				assert.Equal(t, tt.want, r.Turn)
				assert.Equal(t, i+1, r.Attempt)
			}
		})
	}
}

func TestAnthropicDecodedRequest(t *testing.T) {
	srv := modeltest.Start(t, modeltest.Script{{Text: "a"}, {Text: "b"}})
	history := []map[string]any{
		msg("user", []any{
			map[string]any{"type": "text", "text": "<system-reminder>x</system-reminder>"},
			map[string]any{"type": "text", "text": "make hello"},
		}),
		msg("system", "environment"),
		msg("assistant", []any{
			map[string]any{"type": "thinking", "thinking": "hmm", "signature": "s"},
			map[string]any{"type": "tool_use", "id": "toolu_1", "name": "AskUserQuestion", "input": map[string]any{"q": 1}},
		}),
		msg("user", []any{map[string]any{
			"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true,
			"content": []any{map[string]any{"type": "text", "text": `answered: "Blue"`}},
		}}),
	}
	_, _, _, err := post(t, srv, "/v1/messages?beta=true", anthropicBody(true, history...))
	require.NoError(t, err)

	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, "/v1/messages", r.Path)
	assert.Equal(t, "beta=true", r.Query)
	assert.Equal(t, modeltest.Anthropic, r.API)
	assert.Equal(t, modeltest.KindTurn, r.Kind)
	assert.True(t, r.Stream)
	assert.Equal(t, "claude-test", r.Model)
	assert.Equal(t, 1024, r.MaxTokens)
	assert.Equal(t, "You are a test.", r.System)
	assert.Equal(t, []string{"Write"}, r.Tools)
	assert.True(t, r.HasTool("Write"))
	assert.Equal(t, "sk-test", r.Header.Get("x-api-key"))
	assert.Equal(t, 1, r.Turn)
	assert.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, "<system-reminder>x</system-reminder>\nmake hello", r.UserText())
	assert.Equal(t, "<system-reminder>x</system-reminder>\nmake hello", r.LastUserText())

	want := []modeltest.Content{{Type: "tool_result", Name: "AskUserQuestion", CallID: "toolu_1", Text: `answered: "Blue"`, IsError: true}}
	if diff := cmp.Diff(want, r.ToolResults()); diff != "" {
		t.Errorf("tool results (-want +got):\n%s", diff)
	}
	res, ok := r.ToolResult("AskUserQuestion")
	assert.True(t, ok)
	assert.Equal(t, `answered: "Blue"`, res.Text)
	calls := r.ToolCalls()
	require.Len(t, calls, 1)
	assert.JSONEq(t, `{"q":1}`, string(calls[0].Input))
	assert.Equal(t, []string{"user", "system", "assistant", "user"}, roles(r.Messages))
}

func roles(msgs []modeltest.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role
	}
	return out
}

func TestAnthropicSideEndpoints(t *testing.T) {
	srv := modeltest.Start(t, modeltest.Script{{Text: "main"}})

	quota := anthropicBody(false, msg("user", "quota"))
	quota["max_tokens"] = 1
	delete(quota, "tools")
	status, _, body, err := post(t, srv, "/v1/messages", quota)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	var got map[string]any
	require.NoError(t, json.Unmarshal(body, &got))
	assert.Equal(t, "OK", dig(got, "content", 0, "text"))

	status, _, body, err = post(t, srv, "/v1/messages/count_tokens", anthropicBody(false, msg("user", "count me")))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, json.Unmarshal(body, &got))
	assert.Greater(t, got["input_tokens"], 0.0)

	// The main conversation still starts at turn 0.
	status, _, body, err = post(t, srv, "/v1/messages", anthropicBody(false, msg("user", "go")))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, json.Unmarshal(body, &got))
	assert.Equal(t, "main", dig(got, "content", 0, "text"))

	var kinds []modeltest.Kind
	for _, r := range srv.Requests() {
		kinds = append(kinds, r.Kind)
	}
	assert.Equal(t, []modeltest.Kind{modeltest.KindSideCall, modeltest.KindCountTokens, modeltest.KindTurn}, kinds)
	assert.Len(t, srv.TurnRequests(), 1)
}
