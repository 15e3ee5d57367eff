package assertion_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/luxtest"
)

func toolResult(name, id string, r lux.ToolResult) lux.Event {
	r.Name, r.ToolUseID = name, id
	p := lux.NewProgress("tr-"+id, lux.KindToolResult, &r)
	return lux.Event{Type: lux.EventProgress, Progress: &p}
}

// rawProgress is a progress event as a record holds it, payload and all.
func rawProgress(t testing.TB, kind, payload string) lux.Event {
	t.Helper()
	var e lux.Event
	require.NoError(t, json.Unmarshal([]byte(`{"type":"progress","id":"x","kind":"`+kind+`","payload":`+payload+`}`), &e))
	return e
}

// calcRun is an MCP probe of a calculator: add succeeds twice (once with
// structured content, once with JSON text), divide fails.
func calcRun(t testing.TB) *lux.Run {
	return luxtest.NewRun(t, nil,
		toolCall("add", "p1", "", map[string]any{"a": 2, "b": 3}),
		toolResult("add", "p1", lux.ToolResult{Content: []any{map[string]any{"type": "text", "text": `{"sum":5}`}}, StructuredContent: map[string]any{"sum": 5}, Text: `{"sum":5}`}),
		toolCall("add", "p2", "", map[string]any{"a": 1, "b": 1, "note": "small numbers"}),
		toolResult("add", "p2", lux.ToolResult{Content: []any{map[string]any{"type": "text", "text": `{"sum":2}`}}, Text: `{"sum":2}`}),
		toolCall("divide", "p3", "", map[string]any{"a": 1, "b": 0}),
		toolResult("divide", "p3", lux.ToolResult{Content: []any{map[string]any{"type": "text", "text": "division by zero"}}, IsError: true, Text: "division by zero"}),
		toolCall("sleep", "p4", "", map[string]any{}),
	)
}

// malformedRun has a tool result whose payload does not decode.
func malformedRun(t testing.TB) *lux.Run {
	return luxtest.NewRun(t, nil, toolCall("add", "p1", "", nil), rawProgress(t, lux.KindToolResult, `{"name":"add","toolUseId":"p1","isError":"yes"}`))
}

func TestToolResultIsError(t *testing.T) {
	p := plugin(t, "tool-result-is-error")
	luxtest.TestAssertion(t, p,
		luxtest.AssertionCase{Name: "divide errs", Config: json.RawMessage(`{"tool":"divide"}`), Run: calcRun(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "last of any tool errs", Config: json.RawMessage(`{}`), Run: calcRun(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "add does not", Config: json.RawMessage(`{"tool":"add"}`), Run: calcRun(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "add never errs", Config: json.RawMessage(`{"tool":"add","expected":false,"occurrence":"any"}`), Run: calcRun(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "first of any tool", Config: json.RawMessage(`{"occurrence":"first"}`), Run: calcRun(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "no result", Config: json.RawMessage(`{"tool":"sleep"}`), Run: calcRun(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "malformed", Config: json.RawMessage(`{}`), Run: malformedRun(t), Want: luxtest.Ungraded},
		luxtest.AssertionCase{Name: "bad occurrence", Config: json.RawMessage(`{"occurrence":"middle"}`), Want: luxtest.Invalid},
		luxtest.AssertionCase{Name: "name is not the tool", Config: json.RawMessage(`{"tool":"divide","toolName":"x"}`), Want: luxtest.Invalid},
	)
	res := grade(t, "tool-result-is-error", `{"tool":"add"}`, calcRun(t))
	assert.Equal(t, `last result of "add": isError [false], expected true`, res.Comment)
	assert.Equal(t, []string{`{"sum":2}`}, res.Detail.(map[string]any)["texts"])
}

func TestToolResultContains(t *testing.T) {
	luxtest.TestAssertion(t, plugin(t, "tool-result-contains"),
		luxtest.AssertionCase{Name: "any tool", Config: json.RawMessage(`{"text":"by zero"}`), Run: calcRun(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "not add", Config: json.RawMessage(`{"tool":"add","text":"by zero"}`), Run: calcRun(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "first add", Config: json.RawMessage(`{"tool":"add","text":"\"sum\":5","occurrence":"first"}`), Run: calcRun(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "last add", Config: json.RawMessage(`{"tool":"add","text":"\"sum\":5","occurrence":"last"}`), Run: calcRun(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "content without text", Config: json.RawMessage(`{"text":"hello"}`),
			Run: luxtest.NewRun(t, nil, toolCall("Bash", "b1", "", nil), toolResult("Bash", "b1", lux.ToolResult{Content: "hello world"})), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "no results", Config: json.RawMessage(`{"text":"x"}`), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "malformed", Config: json.RawMessage(`{"text":"x"}`), Run: malformedRun(t), Want: luxtest.Ungraded},
		luxtest.AssertionCase{Name: "text required", Config: json.RawMessage(`{}`), Want: luxtest.Invalid},
	)
}

func TestToolResultJSONPointerEquals(t *testing.T) {
	luxtest.TestAssertion(t, plugin(t, "tool-result-json-pointer-equals"),
		luxtest.AssertionCase{Name: "text parsed as JSON", Config: json.RawMessage(`{"tool":"add","jsonPointer":"/sum","value":2}`), Run: calcRun(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "structured content", Config: json.RawMessage(`{"tool":"add","jsonPointer":"/sum","value":5,"occurrence":"first"}`), Run: calcRun(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "wrong sum", Config: json.RawMessage(`{"tool":"add","jsonPointer":"/sum","value":5}`), Run: calcRun(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "any sum", Config: json.RawMessage(`{"tool":"add","jsonPointer":"/sum","value":5.0,"occurrence":"any"}`), Run: calcRun(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "plain text", Config: json.RawMessage(`{"tool":"divide","contains":"zero"}`), Run: calcRun(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "absent", Config: json.RawMessage(`{"tool":"add","jsonPointer":"/product","value":6}`), Run: calcRun(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "both", Config: json.RawMessage(`{"tool":"add","value":1,"contains":"1"}`), Want: luxtest.Invalid},
		luxtest.AssertionCase{Name: "neither", Config: json.RawMessage(`{"tool":"add"}`), Want: luxtest.Invalid},
		luxtest.AssertionCase{Name: "bad pointer", Config: json.RawMessage(`{"tool":"add","jsonPointer":"sum","value":1}`), Want: luxtest.Invalid},
		luxtest.AssertionCase{Name: "tool required", Config: json.RawMessage(`{"value":1}`), Want: luxtest.Invalid},
	)
	res := grade(t, "tool-result-json-pointer-equals", `{"tool":"add","jsonPointer":"/sum","value":5}`, calcRun(t))
	assert.Equal(t, `last result of "add" at /sum: 2, want = 5`, res.Comment)
}

func TestNoErrorResults(t *testing.T) {
	ok := luxtest.NewRun(t, nil, toolCall("add", "p1", "", nil), toolResult("add", "p1", lux.ToolResult{Text: "5"}))
	luxtest.TestAssertion(t, plugin(t, "no-error-results"),
		luxtest.AssertionCase{Name: "divide erred", Run: calcRun(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "clean", Run: ok, Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "empty", Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "empty allowed", Config: json.RawMessage(`{"allowEmpty":true}`), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "malformed", Run: malformedRun(t), Want: luxtest.Ungraded},
		luxtest.AssertionCase{Name: "result without an id", Run: luxtest.NewRun(t, nil, rawProgress(t, lux.KindToolResult, `{"name":"add","isError":false,"text":""}`)), Want: luxtest.Ungraded},
	)
	res := grade(t, "no-error-results", `{}`, calcRun(t))
	assert.Equal(t, "1 of 3 tool results had isError: divide", res.Comment)
	assert.Equal(t, "division by zero", res.Detail.(map[string]any)["offenders"].([]map[string]any)[0]["text"])
}

func TestToolInvocation(t *testing.T) {
	luxtest.TestAssertion(t, plugin(t, "tool-invocation"),
		luxtest.AssertionCase{Name: "any success", Config: json.RawMessage(`{"tool":"add"}`), Run: calcRun(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "input equals", Config: json.RawMessage(`{"tool":"add","input":{"jsonPointer":"/a","equals":2}}`), Run: calcRun(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "input and output of one call", Config: json.RawMessage(`{"tool":"add","input":{"jsonPointer":"/a","equals":2},"output":{"jsonPointer":"/sum","equals":2}}`), Run: calcRun(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "output matches", Config: json.RawMessage(`{"tool":"add","output":{"jsonPointer":"/sum","matches":"^[25]$"},"occurrence":"last"}`), Run: calcRun(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "input contains", Config: json.RawMessage(`{"tool":"add","input":{"contains":"SMALL"}}`), Run: calcRun(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "input matches with flags", Config: json.RawMessage(`{"tool":"add","input":{"matches":"SMALL","flags":"i"}}`), Run: calcRun(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "error wanted", Config: json.RawMessage(`{"tool":"divide","result":"error","output":{"contains":"by zero"}}`), Run: calcRun(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "success wanted", Config: json.RawMessage(`{"tool":"divide"}`), Run: calcRun(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "unresolved", Config: json.RawMessage(`{"tool":"sleep","result":"any"}`), Run: calcRun(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "first only", Config: json.RawMessage(`{"tool":"add","occurrence":"first","input":{"jsonPointer":"/note","contains":"small"}}`), Run: calcRun(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "malformed call", Config: json.RawMessage(`{"tool":"add"}`), Run: luxtest.NewRun(t, nil, rawProgress(t, lux.KindToolCall, `{"name":"add","input":{}}`)), Want: luxtest.Ungraded},
		luxtest.AssertionCase{Name: "two matchers", Config: json.RawMessage(`{"tool":"add","input":{"equals":1,"contains":"1"}}`), Want: luxtest.Invalid},
		luxtest.AssertionCase{Name: "no matcher", Config: json.RawMessage(`{"tool":"add","output":{"jsonPointer":"/sum"}}`), Want: luxtest.Invalid},
		luxtest.AssertionCase{Name: "flags without matches", Config: json.RawMessage(`{"tool":"add","output":{"contains":"x","flags":"i"}}`), Want: luxtest.Invalid},
		luxtest.AssertionCase{Name: "bad regexp", Config: json.RawMessage(`{"tool":"add","output":{"matches":"(a"}}`), Want: luxtest.Invalid},
		luxtest.AssertionCase{Name: "bad result", Config: json.RawMessage(`{"tool":"add","result":"ok"}`), Want: luxtest.Invalid},
	)
	_, err := plugin(t, "tool-invocation").Parse(json.RawMessage(`{"tool":"add","input":{"equals":1,"contains":"1"},"output":{"matches":"(a"}}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "input: set exactly one of equals, contains and matches (2 set)")
	assert.Contains(t, err.Error(), "output.matches: not a valid regular expression")

	res := grade(t, "tool-invocation", `{"tool":"add","input":{"jsonPointer":"/a","equals":2},"output":{"jsonPointer":"/sum","equals":2}}`, calcRun(t))
	assert.Equal(t, `"add" has no matching success invocation with input/a = 2 and output/sum = 2: 2 calls, 2 paired with a result, 2 of the kind asked`, res.Comment)
}

func TestToolInvocationDuplicateIDsPairWithNothing(t *testing.T) {
	run := luxtest.NewRun(t, nil,
		toolCall("add", "same", "", map[string]any{"a": 1}),
		toolCall("add", "same", "", map[string]any{"a": 2}),
		toolResult("add", "same", lux.ToolResult{Text: "3"}),
	)
	res := grade(t, "tool-invocation", `{"tool":"add","result":"any"}`, run)
	assert.False(t, res.Passed, "which call the result answers cannot be told: %s", res.Comment)
	assert.Equal(t, 0, res.Detail.(map[string]any)["paired"])
}

func TestFileRegexSet(t *testing.T) {
	files := map[string]string{"notes.md": "# Title\n\nTODO: write the intro\n"}
	run := luxtest.NewRun(t, files)
	luxtest.TestAssertion(t, plugin(t, "file-regex-set"),
		luxtest.AssertionCase{Name: "all", Config: json.RawMessage(`{"path":"notes.md","mode":"all","patterns":["^# ","(?m)^TODO"]}`), Run: run, Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "not all", Config: json.RawMessage(`{"path":"notes.md","mode":"all","patterns":["^# ","FIXME"]}`), Run: run, Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "any", Config: json.RawMessage(`{"path":"notes.md","mode":"any","patterns":["FIXME","todo"],"flags":"i"}`), Run: run, Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "none", Config: json.RawMessage(`{"path":"notes.md","mode":"none","patterns":["FIXME","TODO"]}`), Run: run, Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "none match", Config: json.RawMessage(`{"path":"notes.md","mode":"none","patterns":["FIXME","XXX"]}`), Run: run, Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "missing file", Config: json.RawMessage(`{"path":"gone.md","mode":"any","patterns":["x"]}`), Run: run, Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "mode required", Config: json.RawMessage(`{"path":"notes.md","patterns":["x"]}`), Want: luxtest.Invalid},
		luxtest.AssertionCase{Name: "no patterns", Config: json.RawMessage(`{"path":"notes.md","mode":"all","patterns":[]}`), Want: luxtest.Invalid},
		luxtest.AssertionCase{Name: "bad pattern", Config: json.RawMessage(`{"path":"notes.md","mode":"all","patterns":["ok","(?<=x)y"]}`), Want: luxtest.Invalid},
		luxtest.AssertionCase{Name: "escape", Config: json.RawMessage(`{"path":"../x","mode":"all","patterns":["x"]}`), Want: luxtest.Invalid},
	)
	res := grade(t, "file-regex-set", `{"path":"notes.md","mode":"all","patterns":["^# ","FIXME"]}`, run)
	assert.Equal(t, `1 of 2 patterns match "notes.md"; expected all (unmatched: /FIXME/)`, res.Comment)
	assert.Equal(t, []string{"FIXME"}, res.Detail.(map[string]any)["unmatchedPatterns"])
	_, err := plugin(t, "file-regex-set").Parse(json.RawMessage(`{"path":"notes.md","mode":"most","patterns":["ok","(?<=x)y"]}`))
	require.Error(t, err)
	for _, want := range []string{`mode: must be "all", "any" or "none", got "most"`, "patterns[1]: not a valid regular expression"} {
		assert.True(t, strings.Contains(err.Error(), want), "%q in %v", want, err)
	}
}
