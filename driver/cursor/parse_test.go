package cursor

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux"
)

// parseAll feeds lines to a fresh parser and returns every event,
// including what Finish flushes.
func parseAll(opts parseOptions, lines ...string) []lux.Event {
	p := newParser(opts)
	var out []lux.Event
	for _, l := range lines {
		out = append(out, p.Line([]byte(l))...)
	}
	return append(out, p.Finish()...)
}

const initLine = `{"type":"system","subtype":"init","apiKeySource":"env","cwd":"/w","session_id":"s-1","model":"GPT-5.6 Luna 272K Low","permissionMode":"default"}`

func readyEv(model string, detail map[string]any) lux.Event {
	return lux.Event{Type: lux.EventReady, Ready: &lux.Ready{AgentID: AgentID, Model: model, Detail: detail}}
}

var initDetail = map[string]any{
	"sessionId": "s-1", "modelName": "GPT-5.6 Luna 272K Low", "apiKeySource": "env", "cwd": "/w", "permissionMode": "default",
}

func progressEv(id, kind string, v any) lux.Event {
	p := lux.NewProgress(id, kind, v)
	return lux.Event{Type: lux.EventProgress, Progress: &p}
}

func msgEv(id, text string) lux.Event {
	return progressEv(id, lux.KindAgentMessage, &lux.Message{Text: text})
}

func reasonEv(id, text string) lux.Event {
	return progressEv(id, lux.KindReasoning, &lux.Message{Text: text})
}

func TestParserEvents(t *testing.T) {
	readyLine := initLine
	tests := []struct {
		name  string
		opts  parseOptions
		lines []string
		want  []lux.Event
	}{
		{
			name:  "init becomes ready with the configured model and the CLI version",
			opts:  parseOptions{Model: "gpt-5.6-luna-low", CLIVersion: "2026.09.10-fd3934a"},
			lines: []string{initLine},
			want: []lux.Event{{Type: lux.EventReady, Ready: &lux.Ready{
				AgentID: AgentID, AgentVersion: "2026.09.10-fd3934a", Model: "gpt-5.6-luna-low",
				Detail: map[string]any{
					"sessionId": "s-1", "modelName": "GPT-5.6 Luna 272K Low", "apiKeySource": "env", "cwd": "/w",
					"permissionMode": "default", "cliVersion": "2026.09.10-fd3934a",
				},
			}}},
		},
		{
			name:  "init without a configured model reports the display name",
			lines: []string{initLine},
			want:  []lux.Event{readyEv("GPT-5.6 Luna 272K Low", initDetail)},
		},
		{
			name:  "a first line other than init still starts with ready",
			lines: []string{`{"type":"retry","subtype":"starting","attempt":1}`, initLine},
			want: []lux.Event{
				readyEv("", map[string]any{"init": "missing"}),
				progressEv("ev-1", KindCursorEvent, json.RawMessage(`{"type":"retry","subtype":"starting","attempt":1}`)),
				progressEv("ev-2", KindCursorEvent, json.RawMessage(initLine)),
			},
		},
		{
			name:  "the prompt echo is dropped",
			lines: []string{readyLine, `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"session_id":"s-1"}`},
			want:  []lux.Event{readyEv("GPT-5.6 Luna 272K Low", initDetail)},
		},
		{
			name: "thinking deltas become one reasoning event",
			lines: []string{
				readyLine,
				`{"type":"thinking","subtype":"delta","text":"Replying ","session_id":"s-1","timestamp_ms":1}`,
				`{"type":"thinking","subtype":"delta","text":"with \"ok\".","session_id":"s-1","timestamp_ms":2}`,
				`{"type":"thinking","subtype":"completed","session_id":"s-1","timestamp_ms":3}`,
			},
			want: []lux.Event{readyEv("GPT-5.6 Luna 272K Low", initDetail), reasonEv("rs-1", `Replying with "ok".`)},
		},
		{
			name: "thinking without completed is flushed by the next line",
			lines: []string{
				readyLine,
				`{"type":"thinking","subtype":"delta","text":"plan","timestamp_ms":1}`,
				`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]}}`,
			},
			want: []lux.Event{readyEv("GPT-5.6 Luna 272K Low", initDetail), reasonEv("rs-1", "plan"), msgEv("am-2", "Done.")},
		},
		{
			name: "thinking still buffered at the end of stdout is flushed",
			lines: []string{
				readyLine,
				`{"type":"thinking","subtype":"delta","text":"half a thought","timestamp_ms":1}`,
			},
			want: []lux.Event{readyEv("GPT-5.6 Luna 272K Low", initDetail), reasonEv("rs-1", "half a thought")},
		},
		{
			name: "whole assistant messages, blank ones skipped",
			lines: []string{
				readyLine,
				`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I'll read "},{"type":"text","text":"the README"}]},"session_id":"s-1","model_call_id":"m1","timestamp_ms":5}`,
				`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"  "}]},"session_id":"s-1"}`,
				`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Done!"}]},"session_id":"s-1"}`,
			},
			want: []lux.Event{readyEv("GPT-5.6 Luna 272K Low", initDetail), msgEv("am-1", "I'll read the README"), msgEv("am-2", "Done!")},
		},
		{
			name: "partial output is deduplicated: deltas appended, flushes skipped",
			lines: []string{
				readyLine,
				`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Let me "}]},"session_id":"s-1","timestamp_ms":1}`,
				`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"look."}]},"session_id":"s-1","timestamp_ms":2}`,
				`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Let me look."}]},"session_id":"s-1","timestamp_ms":3,"model_call_id":"m1"}`,
				`{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"lsToolCall":{"args":{"path":"."}}},"model_call_id":"m1","session_id":"s-1"}`,
				`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"All "}]},"session_id":"s-1","timestamp_ms":4}`,
				`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"good."}]},"session_id":"s-1","timestamp_ms":5}`,
				`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"All good."}]},"session_id":"s-1"}`,
			},
			want: []lux.Event{
				readyEv("GPT-5.6 Luna 272K Low", initDetail),
				msgEv("am-1", "Let me look."),
				progressEv("tc-c1", lux.KindToolCall, &lux.ToolCall{Name: "ls", Input: map[string]any{"path": "."}, ToolUseID: "c1"}),
				msgEv("am-2", "All good."),
			},
		},
		{
			name: "with --stream-partial-output passed, flush lines are skipped even before any delta",
			opts: parseOptions{Partial: true},
			lines: []string{
				readyLine,
				`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"dup"}]},"timestamp_ms":3,"model_call_id":"m1"}`,
				`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"dup"}]}}`,
			},
			want: []lux.Event{readyEv("GPT-5.6 Luna 272K Low", initDetail)},
		},
		{
			name: "interaction queries are kept as progress",
			lines: []string{
				readyLine,
				`{"type":"interaction_query","subtype":"request","query_type":"createPlanRequestQuery","query":{"id":0,"createPlanRequestQuery":{"args":{"plan":"# Plan"}}}}`,
			},
			want: []lux.Event{
				readyEv("GPT-5.6 Luna 272K Low", initDetail),
				progressEv("iq-1", KindInteractionQuery, json.RawMessage(`{"type":"interaction_query","subtype":"request","query_type":"createPlanRequestQuery","query":{"id":0,"createPlanRequestQuery":{"args":{"plan":"# Plan"}}}}`)),
			},
		},
		{
			name: "notifications, retries, connections and unknown types are kept raw",
			lines: []string{
				readyLine,
				`{"type":"system","subtype":"task_notification","task_id":"t1","title":"x"}`,
				`{"type":"system","subtype":"background_shell_timeout","aborted_count":1,"timeout_ms":1000}`,
				`{"type":"connection","subtype":"reconnecting","attempt":2}`,
				`{"type":"brand_new","x":1}`,
			},
			want: []lux.Event{
				readyEv("GPT-5.6 Luna 272K Low", initDetail),
				progressEv("ev-1", KindCursorEvent, json.RawMessage(`{"type":"system","subtype":"task_notification","task_id":"t1","title":"x"}`)),
				progressEv("ev-2", KindCursorEvent, json.RawMessage(`{"type":"system","subtype":"background_shell_timeout","aborted_count":1,"timeout_ms":1000}`)),
				progressEv("ev-3", KindCursorEvent, json.RawMessage(`{"type":"connection","subtype":"reconnecting","attempt":2}`)),
				progressEv("ev-4", KindCursorEvent, json.RawMessage(`{"type":"brand_new","x":1}`)),
			},
		},
		{
			name:  "a stdout line that is not JSON is kept as text; blank lines are dropped",
			lines: []string{readyLine, "", "Warning: something\r", "[1,2]"},
			want: []lux.Event{
				readyEv("GPT-5.6 Luna 272K Low", initDetail),
				progressEv("out-1", KindStdout, map[string]string{"text": "Warning: something"}),
				progressEv("out-2", KindStdout, map[string]string{"text": "[1,2]"}),
			},
		},
		{
			name: "result with usage",
			lines: []string{
				readyLine,
				`{"type":"result","subtype":"success","duration_ms":10618,"duration_api_ms":10618,"is_error":false,"result":"Created hello.txt","session_id":"s-1","request_id":"r-1","usage":{"inputTokens":32473,"outputTokens":305,"cacheReadTokens":96675,"cacheWriteTokens":7}}`,
			},
			want: []lux.Event{
				readyEv("GPT-5.6 Luna 272K Low", initDetail),
				{Type: lux.EventDone, Done: &lux.Done{
					Usage:   &lux.TokenUsage{Input: 32473, Output: 305, CacheRead: 96675, CacheCreation: 7},
					Summary: map[string]any{"sessionId": "s-1", "requestId": "r-1", "durationMs": 10618.0, "durationApiMs": 10618.0, "result": "Created hello.txt"},
				}},
			},
		},
		{
			name: "result without usage, as older versions print: usage unavailable",
			lines: []string{
				readyLine,
				`{"type":"result","subtype":"success","duration_ms":5234,"duration_api_ms":5234,"is_error":false,"result":"Done","session_id":"s-1"}`,
			},
			want: []lux.Event{
				readyEv("GPT-5.6 Luna 272K Low", initDetail),
				{Type: lux.EventDone, Done: &lux.Done{
					Summary: map[string]any{"sessionId": "s-1", "durationMs": 5234.0, "durationApiMs": 5234.0, "result": "Done"},
				}},
			},
		},
		{
			name: "result with zero usage is zero, not unavailable",
			lines: []string{
				readyLine,
				`{"type":"result","subtype":"success","is_error":false,"result":"","usage":{"inputTokens":0,"outputTokens":0,"cacheReadTokens":0,"cacheWriteTokens":0}}`,
			},
			want: []lux.Event{
				readyEv("GPT-5.6 Luna 272K Low", initDetail),
				{Type: lux.EventDone, Done: &lux.Done{Usage: &lux.TokenUsage{}, Summary: map[string]any{"sessionId": "s-1"}}},
			},
		},
		{
			name: "usage at the top level with counts as strings",
			lines: []string{
				readyLine,
				`{"type":"result","subtype":"success","is_error":false,"inputTokens":"12","outputTokens":3}`,
			},
			want: []lux.Event{
				readyEv("GPT-5.6 Luna 272K Low", initDetail),
				{Type: lux.EventDone, Done: &lux.Done{Usage: &lux.TokenUsage{Input: 12, Output: 3}, Summary: map[string]any{"sessionId": "s-1"}}},
			},
		},
		{
			name: "an error result ends in error",
			lines: []string{
				readyLine,
				`{"type":"result","subtype":"error","is_error":true,"result":"model unavailable"}`,
			},
			want: []lux.Event{
				readyEv("GPT-5.6 Luna 272K Low", initDetail),
				{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: "model unavailable"}},
			},
		},
		{
			name: "an error result keeps the usage reported with it",
			lines: []string{
				readyLine,
				`{"type":"result","subtype":"error","is_error":true,"result":"rate limited","usage":{"inputTokens":300,"outputTokens":10}}`,
			},
			want: []lux.Event{
				readyEv("GPT-5.6 Luna 272K Low", initDetail),
				{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: "rate limited",
					Usage: &lux.TokenUsage{Input: 300, Output: 10}}},
			},
		},
		{
			name: "an error result without text gets a reason",
			lines: []string{
				readyLine,
				`{"type":"result","subtype":"success","is_error":true}`,
			},
			want: []lux.Event{
				readyEv("GPT-5.6 Luna 272K Low", initDetail),
				{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: "cursor-agent reported an error"}},
			},
		},
		{
			name: "nothing after the result",
			lines: []string{
				readyLine,
				`{"type":"thinking","subtype":"delta","text":"hm"}`,
				`{"type":"result","subtype":"success","is_error":false}`,
				`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"late"}]}}`,
				`{"type":"result","subtype":"success","is_error":false}`,
			},
			want: []lux.Event{
				readyEv("GPT-5.6 Luna 272K Low", initDetail),
				reasonEv("rs-1", "hm"),
				{Type: lux.EventDone, Done: &lux.Done{Summary: map[string]any{"sessionId": "s-1"}}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseAll(tt.opts, tt.lines...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// toolView is what a tool test checks of a tool-call / tool-result pair,
// with the free-form values as JSON.
type toolView struct {
	CallID, CallName, Input   string
	ResultName, Content, Text string
	IsError, HasResult        bool
	DurationMs                float64
	Structured                string
}

func viewTools(t *testing.T, evs []lux.Event) toolView {
	t.Helper()
	js := func(v any) string {
		if v == nil {
			return ""
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		return string(b)
	}
	var v toolView
	for _, e := range evs {
		if e.Progress == nil {
			continue
		}
		if c := e.Progress.ToolCall; c != nil {
			if e.Progress.ID != "tc-"+c.ToolUseID {
				t.Errorf("tool-call id %q, want tc-%s", e.Progress.ID, c.ToolUseID)
			}
			v.CallID, v.CallName, v.Input = c.ToolUseID, c.Name, js(c.Input)
		}
		if r := e.Progress.ToolResult; r != nil {
			if r.ToolUseID != v.CallID {
				t.Errorf("tool-result for %q follows call %q", r.ToolUseID, v.CallID)
			}
			v.HasResult, v.ResultName, v.Content, v.Text, v.IsError = true, r.Name, js(r.Content), r.Text, r.IsError
			if r.DurationMs != nil {
				v.DurationMs = *r.DurationMs
			}
			if r.StructuredContent != nil {
				v.Structured = js(r.StructuredContent)
			}
		}
	}
	return v
}

func TestParserToolKinds(t *testing.T) {
	started := func(callID, tc string) string {
		return `{"type":"tool_call","subtype":"started","call_id":` + callID + `,"tool_call":` + tc + `,"model_call_id":"m1","session_id":"s-1","timestamp_ms":1}`
	}
	completed := func(callID, tc string) string {
		return `{"type":"tool_call","subtype":"completed","call_id":` + callID + `,"tool_call":` + tc + `,"model_call_id":"m1","session_id":"s-1","timestamp_ms":2}`
	}
	tests := []struct {
		name  string
		lines []string
		want  toolView
	}{
		{
			name: "shell success, durations from string timestamps",
			lines: []string{
				started(`"c1"`, `{"shellToolCall":{"args":{"command":"ls","fileOutputThresholdBytes":"40000"}},"toolCallId":"c1","startedAtMs":"1783627341097"}`),
				completed(`"c1"`, `{"shellToolCall":{"args":{"command":"ls"},"result":{"success":{"command":"ls","exitCode":0,"stdout":"README.md\n","stderr":"","interleavedOutput":"README.md\n"},"isBackground":false}},"toolCallId":"c1","startedAtMs":"1783627341097","completedAtMs":"1783627344549"}`),
			},
			want: toolView{
				CallID: "c1", CallName: "shell", Input: `{"command":"ls","fileOutputThresholdBytes":"40000"}`,
				HasResult: true, ResultName: "shell", Text: "README.md\n", DurationMs: 3452,
				Content: `{"isBackground":false,"success":{"command":"ls","exitCode":0,"interleavedOutput":"README.md\n","stderr":"","stdout":"README.md\n"}}`,
			},
		},
		{
			name: "shell with a non-zero exit arrives as failure",
			lines: []string{
				started(`"c2"`, `{"shellToolCall":{"args":{"command":"false"}}}`),
				completed(`"c2"`, `{"shellToolCall":{"args":{"command":"false"},"result":{"failure":{"command":"false","exitCode":1,"stdout":"","stderr":"boom\n"}}}}`),
			},
			want: toolView{
				CallID: "c2", CallName: "shell", Input: `{"command":"false"}`,
				HasResult: true, ResultName: "shell", Text: "boom\n", IsError: true,
				Content: `{"failure":{"command":"false","exitCode":1,"stderr":"boom\n","stdout":""}}`,
			},
		},
		{
			name: "a rejected shell call with no started line still counts as a call",
			lines: []string{
				completed(`"call-shell-3"`, `{"shellToolCall":{"result":{"rejected":{"command":"python3 hello.py","reason":"","isReadonly":false}}}}`),
			},
			want: toolView{
				CallID: "call-shell-3", CallName: "shell", Input: "",
				HasResult: true, ResultName: "shell", Text: "rejected", IsError: true,
				Content: `{"rejected":{"command":"python3 hello.py","isReadonly":false,"reason":""}}`,
			},
		},
		{
			name: "read success",
			lines: []string{
				started(`"toolu_1"`, `{"readToolCall":{"args":{"path":"README.md"}}}`),
				completed(`"toolu_1"`, `{"readToolCall":{"args":{"path":"README.md"},"result":{"success":{"content":"# Project\n","isEmpty":false,"totalLines":54}}}}`),
			},
			want: toolView{
				CallID: "toolu_1", CallName: "read", Input: `{"path":"README.md"}`,
				HasResult: true, ResultName: "read", Text: "# Project\n",
				Content: `{"success":{"content":"# Project\n","isEmpty":false,"totalLines":54}}`,
			},
		},
		{
			name: "read error",
			lines: []string{
				started(`"r2"`, `{"readToolCall":{"args":{"path":"nope"}}}`),
				completed(`"r2"`, `{"readToolCall":{"args":{"path":"nope"},"result":{"error":{"errorMessage":"File not found"}}}}`),
			},
			want: toolView{
				CallID: "r2", CallName: "read", Input: `{"path":"nope"}`,
				HasResult: true, ResultName: "read", Text: "File not found", IsError: true,
				Content: `{"error":{"errorMessage":"File not found"}}`,
			},
		},
		{
			name: "edit success",
			lines: []string{
				started(`"e1"`, `{"editToolCall":{"args":{"path":"/w/hello.txt"}}}`),
				completed(`"e1"`, `{"editToolCall":{"args":{"path":"/w/hello.txt"},"result":{"success":{"path":"/w/hello.txt","linesAdded":1,"message":"Success. Updated the following files:\nA /w/hello.txt"}}}}`),
			},
			want: toolView{
				CallID: "e1", CallName: "edit", Input: `{"path":"/w/hello.txt"}`,
				HasResult: true, ResultName: "edit", Text: "Success. Updated the following files:\nA /w/hello.txt",
				Content: `{"success":{"linesAdded":1,"message":"Success. Updated the following files:\nA /w/hello.txt","path":"/w/hello.txt"}}`,
			},
		},
		{
			name: "edit denied by permissions",
			lines: []string{
				completed(`"e2"`, `{"editToolCall":{"args":{"path":"/etc/x"},"result":{"writePermissionDenied":{"path":"/etc/x"}}}}`),
			},
			want: toolView{
				CallID: "e2", CallName: "edit", Input: `{"path":"/etc/x"}`,
				HasResult: true, ResultName: "edit", Text: "writePermissionDenied", IsError: true,
				Content: `{"writePermissionDenied":{"path":"/etc/x"}}`,
			},
		},
		{
			name: "write (the documented legacy tool)",
			lines: []string{
				completed(`"w1"`, `{"writeToolCall":{"args":{"path":"summary.txt","fileText":"hi"},"result":{"success":{"path":"summary.txt","linesCreated":1,"fileSize":"2"}}}}`),
			},
			want: toolView{
				CallID: "w1", CallName: "write", Input: `{"fileText":"hi","path":"summary.txt"}`,
				HasResult: true, ResultName: "write", Text: `{"fileSize":"2","linesCreated":1,"path":"summary.txt"}`,
				Content: `{"success":{"fileSize":"2","linesCreated":1,"path":"summary.txt"}}`,
			},
		},
		{
			name: "grep, glob, ls, delete and todos are named by their kind",
			lines: []string{
				completed(`"g1"`, `{"grepToolCall":{"args":{"pattern":"TODO"},"result":{"success":{"pattern":"TODO","workspaceResults":{}}}}}`),
			},
			want: toolView{
				CallID: "g1", CallName: "grep", Input: `{"pattern":"TODO"}`,
				HasResult: true, ResultName: "grep", Text: `{"pattern":"TODO","workspaceResults":{}}`,
				Content: `{"success":{"pattern":"TODO","workspaceResults":{}}}`,
			},
		},
		{
			name: "shell timeout",
			lines: []string{
				completed(`"t1"`, `{"shellToolCall":{"args":{"command":"sleep 99"},"result":{"timeout":{"timeoutMs":"30000"}}}}`),
			},
			want: toolView{
				CallID: "t1", CallName: "shell", Input: `{"command":"sleep 99"}`,
				HasResult: true, ResultName: "shell", Text: "timeout", IsError: true,
				Content: `{"timeout":{"timeoutMs":"30000"}}`,
			},
		},
		{
			name: "a background shell still running is not a failure",
			lines: []string{
				completed(`"b1"`, `{"shellToolCall":{"args":{"command":"serve"},"result":{"stillRunning":{"pid":7}}}}`),
			},
			want: toolView{
				CallID: "b1", CallName: "shell", Input: `{"command":"serve"}`,
				HasResult: true, ResultName: "shell", Text: "stillRunning",
				Content: `{"stillRunning":{"pid":7}}`,
			},
		},
		{
			name: "mcp tool named by its tool name, with MCP content",
			lines: []string{
				started(`"m1"`, `{"mcpToolCall":{"args":{"name":"docs-search","args":{"q":"x"},"providerIdentifier":"docs","toolName":"search"}}}`),
				completed(`"m1"`, `{"mcpToolCall":{"args":{"name":"docs-search","args":{"q":"x"},"providerIdentifier":"docs","toolName":"search"},"result":{"success":{"content":[{"text":{"text":"found"}},{"text":{"text":"two"}}],"isError":false,"structuredContent":{"n":2}}}}}`),
			},
			want: toolView{
				CallID: "m1", CallName: "search", Input: `{"args":{"q":"x"},"name":"docs-search","providerIdentifier":"docs","toolName":"search"}`,
				HasResult: true, ResultName: "search", Text: "found\ntwo",
				Content:    `[{"text":{"text":"found"}},{"text":{"text":"two"}}]`,
				Structured: `{"n":2}`,
			},
		},
		{
			name: "mcp tool reporting an error",
			lines: []string{
				completed(`"m2"`, `{"mcpToolCall":{"args":{"toolName":"search"},"result":{"success":{"content":[{"type":"text","text":"bad query"}],"isError":true}}}}`),
			},
			want: toolView{
				CallID: "m2", CallName: "search", Input: `{"toolName":"search"}`,
				HasResult: true, ResultName: "search", Text: "bad query", IsError: true,
				Content: `[{"text":"bad query","type":"text"}]`,
			},
		},
		{
			name: "function form",
			lines: []string{
				completed(`"f1"`, `{"function":{"name":"custom_tool","arguments":"{\"a\":1}"}}`),
			},
			want: toolView{CallID: "f1", CallName: "custom_tool", Input: `{"a":1}`, HasResult: true, ResultName: "custom_tool"},
		},
		{
			name: "protobuf-es form",
			lines: []string{
				started(`"p1"`, `{"tool":{"case":"readToolCall","value":{"args":{"path":"a.go"}}}}`),
			},
			want: toolView{CallID: "p1", CallName: "read", Input: `{"path":"a.go"}`},
		},
		{
			name: "a kind added later is named by its key",
			lines: []string{
				started(`"n1"`, `{"prManagementToolCall":{"args":{"op":"open"}},"toolCallId":"n1"}`),
			},
			want: toolView{CallID: "n1", CallName: "prManagement", Input: `{"op":"open"}`},
		},
		{
			name: "call id falls back to toolCallId, which may hold a newline",
			lines: []string{
				started(`""`, `{"lsToolCall":{"args":{"path":"."}},"toolCallId":"call-1\nfc_2"}`),
			},
			want: toolView{CallID: "call-1\nfc_2", CallName: "ls", Input: `{"path":"."}`},
		},
		{
			name: "an unreadable tool_call keeps its raw value",
			lines: []string{
				started(`"u1"`, `"weird"`),
			},
			want: toolView{CallID: "u1", CallName: "unknown", Input: `"weird"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := viewTools(t, parseAll(parseOptions{}, append([]string{initLine}, tt.lines...)...))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tool events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParserToolKindsAllNamed(t *testing.T) {
	// Every kind CURSOR-CLI.md lists is named by its key without the suffix.
	kinds := []string{
		"shell", "delete", "glob", "grep", "read", "updateTodos", "readTodos", "edit", "ls", "readLints",
		"semSearch", "createPlan", "webSearch", "task", "listMcpResources", "readMcpResource", "applyAgentDiff",
		"askQuestion", "fetch", "switchMode", "exaSearch", "exaFetch", "generateImage", "recordScreen",
		"computerUse", "writeShellStdin", "blameByFilePath", "webFetch", "getMcpTools", "mcpAuth", "await",
		"prManagement", "write",
	}
	for _, k := range kinds {
		evs := parseAll(parseOptions{}, initLine,
			`{"type":"tool_call","subtype":"completed","call_id":"x","tool_call":{"`+k+`ToolCall":{"args":{},"result":{"success":{}}},"toolCallId":"x"}}`)
		v := viewTools(t, evs)
		if v.CallName != k || v.ResultName != k || v.IsError {
			t.Errorf("%sToolCall: got %+v", k, v)
		}
	}
}

func TestParserCallIDsAreUnique(t *testing.T) {
	evs := parseAll(parseOptions{}, initLine,
		`{"type":"tool_call","subtype":"started","tool_call":{"lsToolCall":{"args":{}}}}`,
		`{"type":"tool_call","subtype":"started","tool_call":{"lsToolCall":{"args":{}}}}`,
	)
	var ids []string
	for _, e := range evs {
		if e.Progress != nil && e.Progress.ToolCall != nil {
			ids = append(ids, e.Progress.ToolCall.ToolUseID)
		}
	}
	if len(ids) != 2 || ids[0] == ids[1] || strings.TrimSpace(ids[0]) == "" {
		t.Errorf("tool call ids %q: want two distinct, non-empty ids", ids)
	}
}
