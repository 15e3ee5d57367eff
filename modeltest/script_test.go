package modeltest_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/modeltest"
)

func TestScriptValidate(t *testing.T) {
	tests := []struct {
		name   string
		script modeltest.Script
		want   []string // lines of the error; nil means valid
	}{
		{name: "empty script", script: nil},
		{name: "text, calls and failure", script: modeltest.Script{
			{Text: "a", ToolCalls: []modeltest.ToolCall{{Name: "Write", Input: map[string]any{"file_path": "x"}}}},
			{Fail: &modeltest.Failure{Status: 500, Times: 2}},
			{Fail: &modeltest.Failure{Cut: true, After: 3}},
			{Fail: &modeltest.Failure{Drop: true}},
			{Fail: &modeltest.Failure{Stall: true}},
			{Fail: &modeltest.Failure{StreamError: true, Type: "overloaded_error"}},
		}},
		{name: "every problem named", script: modeltest.Script{
			{ToolCalls: []modeltest.ToolCall{
				{Name: " ", Input: json.RawMessage(`{`)},
				{ID: "same", Name: "a"},
				{ID: "same", Name: "b", Input: func() {}},
			}},
			{Fail: &modeltest.Failure{}},
			{Fail: &modeltest.Failure{Status: 200, Cut: true, After: -1, Times: -2}},
			{Fail: &modeltest.Failure{Drop: true, Body: "x"}},
		}, want: []string{
			"modeltest: script[0].ToolCalls[0].Name: empty",
			"modeltest: script[0].ToolCalls[0].Input: invalid JSON",
			"modeltest: script[0].ToolCalls[2].ID: duplicate id \"same\"",
			"modeltest: script[0].ToolCalls[2].Input: cannot encode as JSON: json: unsupported type: func()",
			"modeltest: script[1].Fail: none of Status, Cut, Drop, Stall, StreamError is set",
			"modeltest: script[2].Fail: more than one of Status, Cut, Drop, Stall, StreamError is set",
			"modeltest: script[2].Fail.Status: 200 is not an HTTP error status (400-599)",
			"modeltest: script[2].Fail.After: negative (-1)",
			"modeltest: script[2].Fail.Times: negative (-2)",
			"modeltest: script[3].Fail.Body: set without Status",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.script.Validate()
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, joinLines(tt.want), err.Error())

			_, err = modeltest.NewServer(tt.script)
			require.Error(t, err, "NewServer validates the script")
		})
	}
}

func joinLines(lines []string) string {
	out := ""
	for i, l := range lines {
		if i > 0 {
			out += "\n"
		}
		out += l
	}
	return out
}

func TestScriptFromJSON(t *testing.T) {
	const doc = `[
		{"text": "I'll patch.", "tool_calls": [{"name": "apply_patch", "input": "*** Begin Patch\n*** End Patch\n"}],
		 "usage": {"input_tokens": 10, "cache_read_tokens": 5, "output_tokens": 2}},
		{"fail": {"status": 529, "times": 1}, "text": "done"}
	]`
	var script modeltest.Script
	require.NoError(t, json.Unmarshal([]byte(doc), &script))
	want := modeltest.Script{
		{Text: "I'll patch.", ToolCalls: []modeltest.ToolCall{{Name: "apply_patch", Input: "*** Begin Patch\n*** End Patch\n"}},
			Usage: modeltest.Usage{InputTokens: 10, CacheReadTokens: 5, OutputTokens: 2}},
		{Text: "done", Fail: &modeltest.Failure{Status: 529, Times: 1}},
	}
	assert.Equal(t, want, script)

	b, err := json.Marshal(want)
	require.NoError(t, err)
	assert.JSONEq(t, doc, string(b))
}
