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

const patch = "*** Begin Patch\n*** Add File: hello.txt\n+Hello\n*** End Patch\n"

func TestOpenAIStream(t *testing.T) {
	srv := modeltest.Start(t, modeltest.Script{{
		Thinking: "Plan.",
		Text:     "Running it.",
		ToolCalls: []modeltest.ToolCall{
			{Name: "exec_command", Input: map[string]any{"cmd": "echo hi", "login": false}},
			{Name: "apply_patch", Input: patch},
		},
		Usage: modeltest.Usage{InputTokens: 100, CacheReadTokens: 900, OutputTokens: 50, ReasoningTokens: 10},
	}})

	status, ctype, body, err := post(t, srv, "/v1/responses", openaiBody(true, userItem("go")))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "text/event-stream", ctype)
	events := parseSSE(t, body)

	wantNames := []string{
		"response.created", "response.in_progress",
		"response.output_item.added", "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
		"response.output_item.added", "response.content_part.added", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done",
		"response.output_item.done",
		"response.output_item.added", "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done",
		"response.output_item.done",
		"response.completed",
	}
	if diff := cmp.Diff(wantNames, eventNames(events)); diff != "" {
		t.Fatalf("event names (-want +got):\n%s", diff)
	}
	for i, e := range events {
		assert.Equal(t, e.Name, e.Data["type"], "the data's type names the event")
		assert.Equal(t, float64(i), e.Data["sequence_number"])
	}

	var done []any
	for _, e := range events {
		if e.Name == "response.output_item.done" {
			done = append(done, e.Data["item"])
		}
	}
	want := []any{
		map[string]any{"type": "reasoning", "id": "rs_modeltest_0", "summary": []any{map[string]any{"type": "summary_text", "text": "Plan."}}},
		map[string]any{"type": "message", "id": "msg_modeltest_0", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": "Running it.", "annotations": []any{}}}},
		map[string]any{"type": "function_call", "id": "fc_modeltest_0_0", "call_id": "call_modeltest_0_0", "name": "exec_command",
			"arguments": `{"cmd":"echo hi","login":false}`, "status": "completed"},
		map[string]any{"type": "custom_tool_call", "id": "ctc_modeltest_0_1", "call_id": "call_modeltest_0_1", "name": "apply_patch",
			"input": patch, "status": "completed"},
	}
	if diff := cmp.Diff(want, done); diff != "" {
		t.Errorf("done items (-want +got):\n%s", diff)
	}

	completed := events[len(events)-1].Data["response"]
	assert.Equal(t, "completed", dig(completed, "status"))
	assert.Equal(t, "gpt-test", dig(completed, "model"))
	if diff := cmp.Diff(want, dig(completed, "output")); diff != "" {
		t.Errorf("completed output (-want +got):\n%s", diff)
	}
	assert.Equal(t, map[string]any{
		"input_tokens": 1000.0, "input_tokens_details": map[string]any{"cached_tokens": 900.0},
		"output_tokens": 50.0, "output_tokens_details": map[string]any{"reasoning_tokens": 10.0},
		"total_tokens": 1050.0,
	}, dig(completed, "usage"))
}

func TestOpenAINonStreaming(t *testing.T) {
	srv := modeltest.Start(t, modeltest.Script{{Text: "hello"}})
	body := openaiBody(false)
	body["input"] = "just a string"
	status, ctype, got, err := post(t, srv, "/v1/responses", body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "application/json", ctype)
	var resp map[string]any
	require.NoError(t, json.Unmarshal(got, &resp))
	assert.Equal(t, "response", resp["object"])
	assert.Equal(t, "completed", resp["status"])
	assert.Equal(t, "hello", dig(resp, "output", 0, "content", 0, "text"))
	assert.Equal(t, "just a string", srv.Requests()[0].UserText())
}

func TestOpenAITurnChoice(t *testing.T) {
	dev := item("message", map[string]any{"role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "rules"}}})
	reasoning := item("reasoning", map[string]any{"summary": []any{}, "content": nil, "encrypted_content": nil})
	assistant := item("message", map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "a"}}})
	call := func(id string) map[string]any {
		return item("function_call", map[string]any{"call_id": id, "name": "exec_command", "arguments": "{}"})
	}
	output := func(id string) map[string]any {
		return item("function_call_output", map[string]any{"call_id": id, "output": "ok"})
	}
	custom := item("custom_tool_call", map[string]any{"call_id": "c", "name": "apply_patch", "input": patch})
	customOut := item("custom_tool_call_output", map[string]any{"call_id": "c", "output": "Success"})
	tests := []struct {
		name  string
		input []map[string]any
		want  int
	}{
		{"first request", []map[string]any{dev, userItem("go")}, 0},
		{"after one response", []map[string]any{dev, userItem("go"), reasoning, assistant, call("1"), output("1")}, 1},
		{"parallel calls are one response", []map[string]any{userItem("go"), call("1"), call("2"), output("1"), output("2")}, 1},
		{"custom tool call", []map[string]any{userItem("go"), call("1"), output("1"), custom, customOut}, 2},
		{"next user prompt", []map[string]any{userItem("go"), assistant, userItem("again")}, 1},
		{"role-only message items", []map[string]any{{"role": "user", "content": "go"}, {"role": "assistant", "content": "a"}, {"role": "user", "content": "b"}}, 1},
	}
	script := modeltest.Script{{Text: "t0"}, {Text: "t1"}, {Text: "t2"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.Start(t, script)
			for attempt := 1; attempt <= 2; attempt++ {
				status, _, body, err := post(t, srv, "/v1/responses", openaiBody(false, tt.input...))
				require.NoError(t, err)
				require.Equal(t, http.StatusOK, status, "%s", body)
				var got map[string]any
				require.NoError(t, json.Unmarshal(body, &got))
				assert.Equal(t, script[tt.want].Text, dig(got, "output", 0, "content", 0, "text"))
			}
			for i, r := range srv.Requests() {
				assert.Equal(t, tt.want, r.Turn)
				assert.Equal(t, i+1, r.Attempt)
			}
		})
	}
}

func TestOpenAIDecodedRequest(t *testing.T) {
	srv := modeltest.Start(t, modeltest.Script{{Text: "a"}, {Text: "b"}, {Text: "c"}})
	body := openaiBody(true,
		item("message", map[string]any{"role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "base prompt"}}}),
		userItem("<environment_context>cwd</environment_context>"),
		userItem("make hello"),
		item("reasoning", map[string]any{"summary": []any{map[string]any{"type": "summary_text", "text": "think"}}}),
		item("function_call", map[string]any{"call_id": "call_1", "name": "exec_command", "arguments": `{"cmd":"echo hi"}`}),
		item("function_call_output", map[string]any{"call_id": "call_1", "output": "Process exited with code 0\nOutput:\nhi\n"}),
		item("custom_tool_call", map[string]any{"call_id": "call_2", "name": "apply_patch", "input": patch}),
		item("custom_tool_call_output", map[string]any{"call_id": "call_2", "output": []any{map[string]any{"type": "input_text", "text": "Success."}}}),
	)
	body["instructions"] = "be brief"
	body["max_output_tokens"] = 77
	_, _, _, err := post(t, srv, "/openai/v1/responses", body)
	require.NoError(t, err)

	r := srv.Requests()[0]
	assert.Equal(t, modeltest.OpenAI, r.API)
	assert.Equal(t, "/openai/v1/responses", r.Path)
	assert.Equal(t, 2, r.Turn)
	assert.Equal(t, 77, r.MaxTokens)
	assert.Equal(t, "be brief\nbase prompt", r.System)
	assert.Equal(t, []string{"exec_command", "apply_patch", "web_search"}, r.Tools)
	assert.Equal(t, "<environment_context>cwd</environment_context>\nmake hello", r.UserText())
	assert.Equal(t, "make hello", r.LastUserText())
	assert.Equal(t, []string{"developer", "user", "user", "assistant", "assistant", "tool", "assistant", "tool"}, roles(r.Messages))

	want := []modeltest.Content{
		{Type: "tool_result", Name: "exec_command", CallID: "call_1", Text: "Process exited with code 0\nOutput:\nhi\n"},
		{Type: "tool_result", Name: "apply_patch", CallID: "call_2", Text: "Success."},
	}
	if diff := cmp.Diff(want, r.ToolResults()); diff != "" {
		t.Errorf("tool results (-want +got):\n%s", diff)
	}
	calls := r.ToolCalls()
	require.Len(t, calls, 2)
	assert.JSONEq(t, `{"cmd":"echo hi"}`, string(calls[0].Input))
	var input string
	require.NoError(t, json.Unmarshal(calls[1].Input, &input))
	assert.Equal(t, patch, input)
}

func TestOpenAICustomInputNotString(t *testing.T) {
	srv := modeltest.Start(t, modeltest.Script{{ToolCalls: []modeltest.ToolCall{{Name: "apply_patch", Input: map[string]any{"a": 1}}}}})
	_, _, body, err := post(t, srv, "/v1/responses", openaiBody(false, userItem("go")))
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(body, &got))
	assert.Equal(t, "custom_tool_call", dig(got, "output", 0, "type"))
	assert.Equal(t, `{"a":1}`, dig(got, "output", 0, "input"))
}
