package assertion_test

import (
	"testing"

	"github.com/luxeval/lux"
)

var shellCalls = events(
	toolCall("Bash", "t1", "", map[string]any{"command": "go test ./... > out.txt && echo <ok>", "n": 1.0,
		"opts": map[string]any{"retries": 2, "env": []any{"A=1", map[string]any{"B": true}}}}),
	toolCall("Bash", "t2", "", map[string]any{"command": "ls", "n": 2}),
)

// tool-called-with matches the arguments as the agent wrote them: JSON text
// keeps <, > and & unescaped, numbers compare by value, objects regardless
// of key order.
func TestToolCalledWithArguments(t *testing.T) {
	runEvaluations(t, []evaluated{
		{name: "contains over the whole input keeps > and &", typ: "tool-called-with", run: shellCalls, pass: true,
			cfg: `{"tool":"Bash","argsContains":"> out.txt && echo <ok>"}`},
		{name: "contains over a nested object keeps its text", typ: "tool-called-with", run: shellCalls, pass: true,
			cfg: `{"tool":"Bash","argsJsonPointer":"/opts/env","argsContains":"\"A=1\",{\"B\":true}"}`},
		{name: "1 equals 1.0", typ: "tool-called-with", run: shellCalls, pass: true,
			cfg: `{"tool":"Bash","argsJsonPointer":"/n","argsValue":1}`, detail: map[string]any{"hits": 1}},
		{name: "2.0 equals 2", typ: "tool-called-with", run: shellCalls, pass: true,
			cfg: `{"tool":"Bash","argsJsonPointer":"/n","argsValue":2.0}`, detail: map[string]any{"hits": 1}},
		{name: "nested object in any key order", typ: "tool-called-with", run: shellCalls, pass: true,
			cfg: `{"tool":"Bash","argsJsonPointer":"/opts","argsValue":{"env":["A=1",{"B":true}],"retries":2.0}}`},
		{name: "nested object with an extra key", typ: "tool-called-with", run: shellCalls,
			cfg: `{"tool":"Bash","argsJsonPointer":"/opts","argsValue":{"env":["A=1",{"B":true}],"retries":2,"x":null}}`},
		{name: "array element", typ: "tool-called-with", run: shellCalls, pass: true,
			cfg: `{"tool":"Bash","argsJsonPointer":"/opts/env/1/B","argsValue":true}`},
		{name: "a string is not the number", typ: "tool-called-with", run: shellCalls,
			cfg: `{"tool":"Bash","argsJsonPointer":"/n","argsValue":"1"}`},
		{name: "missing pointer is no hit, not null", typ: "tool-called-with", run: shellCalls,
			cfg: `{"tool":"Bash","argsJsonPointer":"/absent","argsValue":null}`},
		{name: "null input resolves only the root", typ: "tool-called-with", pass: true,
			run: events(toolCall("Stop", "t1", "", nil)),
			cfg: `{"tool":"Stop","argsValue":null}`},
		{name: "the comment shows the input as written", typ: "tool-called-with", run: shellCalls,
			cfg:    `{"tool":"Bash","argsJsonPointer":"/command","argsValue":"> x"}`,
			detail: map[string]any{"inputs": []string{`{"command":"go test ./... > out.txt && echo <ok>","n":1,"opts":{"env":["A=1",{"B":true}],"retries":2}}`, `{"command":"ls","n":2}`}}},
	})
}

func TestToolCalledWithSubagentScope(t *testing.T) {
	run := events(
		toolCall("Bash", "t1", "", map[string]any{"command": "ls"}),
		toolCall("Bash", "t2", "task-1", map[string]any{"command": "ls"}),
		progress(lux.KindToolCall, &lux.ToolCall{Name: "Bash", Input: map[string]any{"command": "ls"}}), // no tool use id: malformed
	)
	runEvaluations(t, []evaluated{
		{name: "any", typ: "tool-called-with", run: run, pass: true, cfg: `{"tool":"Bash","argsContains":"ls","minTimes":2}`,
			detail: map[string]any{"calls": 2, "hits": 2}},
		{name: "subagent", typ: "tool-called-with", run: run, cfg: `{"tool":"Bash","argsContains":"ls","minTimes":2,"by":"subagent"}`,
			detail: map[string]any{"calls": 1, "hits": 1}},
	})
}
