package codex

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/golden"
)

// readLines returns the lines of a capture, leaving out the client's
// messages of an app-server exchange (lines starting with ">> ").
func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), ">> ") {
			continue
		}
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	require.NoError(t, sc.Err())
	return out
}

func encodeEvents(t *testing.T, events []lux.Event) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, e := range events {
		line, err := json.Marshal(e)
		require.NoError(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// assertEvents compares events by their on-disk JSON form.
func assertEvents(t *testing.T, want, got []lux.Event) {
	t.Helper()
	w, err := json.Marshal(want)
	require.NoError(t, err)
	g, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, string(w), string(g))
}

// TestExecParserGolden replays real `codex exec --json` captures (codex
// 0.169.0 against a scripted model) and compares the events with golden
// files.
func TestExecParserGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/exec/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".jsonl"), func(t *testing.T) {
			p := newExecParser(parseOptions{Model: "gpt-5.5", CLIVersion: "codex-cli 0.169.0"})
			var events []lux.Event
			for _, l := range readLines(t, f) {
				events = append(events, p.Line(l)...)
			}
			assert.True(t, p.Terminal(), "the capture ends its turn")
			golden.Equal(t, strings.TrimSuffix(f, ".jsonl")+".golden", encodeEvents(t, events))
		})
	}
}

func execEvents(lines ...string) []lux.Event {
	p := newExecParser(parseOptions{Model: "gpt-5.5", CLIVersion: "codex-cli 0.169.0"})
	var out []lux.Event
	for _, l := range lines {
		out = append(out, p.Line([]byte(l))...)
	}
	return out
}

func TestExecParserEvents(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []lux.Event
	}{
		{
			name:  "thread started is ready",
			lines: []string{`{"type":"thread.started","thread_id":"t1"}`, `{"type":"turn.started"}`},
			want: []lux.Event{{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "codex", AgentVersion: "0.169.0", AgentVersionRaw: "codex-cli 0.169.0", Model: "gpt-5.5",
				Detail: map[string]any{"mode": "exec", "threadId": "t1"}}}},
		},
		{
			name: "command that exits non-zero is a failed tool result",
			lines: []string{
				`{"type":"item.started","item":{"id":"item_4","type":"command_execution","command":"/bin/bash -c 'exit 3'","aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
				`{"type":"item.completed","item":{"id":"item_4","type":"command_execution","command":"/bin/bash -c 'exit 3'","aggregated_output":"","exit_code":3,"status":"failed"}}`,
			},
			want: []lux.Event{
				progressEvent("item_4", lux.KindToolCall, &lux.ToolCall{Name: "command_execution", Input: map[string]any{"command": "/bin/bash -c 'exit 3'"}, ToolUseID: "item_4"}),
				progressEvent("item_4/result", lux.KindToolResult, &lux.ToolResult{Name: "command_execution", ToolUseID: "item_4",
					Content: map[string]any{"status": "failed", "output": "", "exitCode": 3}, IsError: true}),
			},
		},
		{
			name: "completed tool item without a start still has its call",
			lines: []string{
				`{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"a\n","exit_code":0,"status":"completed"}}`,
			},
			want: []lux.Event{
				progressEvent("item_1", lux.KindToolCall, &lux.ToolCall{Name: "command_execution", Input: map[string]any{"command": "ls"}, ToolUseID: "item_1"}),
				progressEvent("item_1/result", lux.KindToolResult, &lux.ToolResult{Name: "command_execution", ToolUseID: "item_1",
					Content: map[string]any{"status": "completed", "output": "a\n", "exitCode": 0}, Text: "a\n"}),
			},
		},
		{
			name: "usage takes the cached tokens out of the input",
			lines: []string{
				`{"type":"turn.completed","usage":{"input_tokens":3500,"cached_input_tokens":2000,"cache_write_input_tokens":0,"output_tokens":85,"reasoning_output_tokens":10}}`,
			},
			want: []lux.Event{
				progressEvent("usage-1", lux.KindUsage, &lux.UsageReport{TokenUsage: lux.TokenUsage{Input: 1500, Output: 85, CacheRead: 2000}, Label: "turn"}),
				{Type: lux.EventDone, Done: &lux.Done{Usage: &lux.TokenUsage{Input: 1500, Output: 85, CacheRead: 2000}, Turns: 1, Summary: map[string]any{"threadId": ""}}},
			},
		},
		{
			name: "failed turn is an error with the CLI's message",
			lines: []string{
				`{"type":"error","message":"Reconnecting... 1/1 (high demand)"}`,
				`{"type":"turn.failed","error":{"message":"high demand"}}`,
				`{"type":"turn.completed"}`,
			},
			want: []lux.Event{
				progressEvent("codex-error-1", KindCodexError, map[string]any{"message": "Reconnecting... 1/1 (high demand)", "willRetry": true}),
				errorEvent("high demand"),
			},
		},
		{
			name:  "failed turn without a message uses the last error",
			lines: []string{`{"type":"error","message":"Missing environment variable: FAKE_KEY."}`, `{"type":"turn.failed"}`},
			want: []lux.Event{
				progressEvent("codex-error-1", KindCodexError, map[string]any{"message": "Missing environment variable: FAKE_KEY.", "willRetry": false}),
				errorEvent("Missing environment variable: FAKE_KEY."),
			},
		},
		{
			name:  "a line that is not JSON is kept as text",
			lines: []string{`Reading additional input from stdin...`},
			want:  []lux.Event{progressEvent("stdout-text-1", KindStdout, map[string]string{"text": "Reading additional input from stdin..."})},
		},
		{
			name:  "unknown items are kept raw",
			lines: []string{`{"type":"item.completed","item":{"id":"item_9","type":"todo_list","items":[{"text":"a","completed":false}]}}`},
			want: []lux.Event{progressEvent("item_9", KindCodexItem,
				json.RawMessage(`{"id":"item_9","type":"todo_list","items":[{"text":"a","completed":false}]}`))},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertEvents(t, tc.want, execEvents(tc.lines...))
		})
	}
}
