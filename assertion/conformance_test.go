package assertion_test

import (
	"encoding/json"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/luxtest"
)

// Every built-in assertion keeps the contract every assertion keeps,
// checked by the suite plugin authors run: a passing and a failing run,
// and a config it refuses. A built-in added without cases here fails.
func TestConformance(t *testing.T) {
	cost := 0.25
	run := luxtest.NewRun(t, map[string]string{
		"README.md": "# Demo\nrun it\n",
		"data.json": `{"name":"demo","n":3}`,
	},
		msg("I wrote the README."),
		toolCall("Write", "t1", "", map[string]any{"file_path": "README.md"}),
		toolResult("Write", "t1", lux.ToolResult{Text: "ok"}),
		interrupt(lux.Ask, "q1"),
	)
	run.Outcome.Usage = lux.Usage{Agent: &lux.TokenUsage{Input: 100, Output: 20}, AgentCostUSD: &cost}
	failed := luxtest.NewRun(t, nil)
	failed.Outcome.ExitReason = lux.ExitError

	c := func(name, cfg string, r *lux.Run, want luxtest.Verdict) luxtest.AssertionCase {
		return luxtest.AssertionCase{Name: name, Config: json.RawMessage(cfg), Run: r, Want: want}
	}
	cases := map[string][]luxtest.AssertionCase{
		"run-succeeded": {c("done", `{}`, run, luxtest.Pass), c("error", `{}`, failed, luxtest.Fail)},
		"file-exists": {
			c("present", `{"path":"README.md"}`, run, luxtest.Pass), c("absent", `{"path":"nope.md"}`, run, luxtest.Fail),
			c("escape", `{"path":"../x"}`, nil, luxtest.Invalid),
		},
		"file-contains": {
			c("present", `{"path":"README.md","text":"run it"}`, run, luxtest.Pass),
			c("absent", `{"path":"README.md","text":"walk it"}`, run, luxtest.Fail),
			c("no text", `{"path":"README.md"}`, nil, luxtest.Invalid),
		},
		"file-matches": {
			c("matches", `{"path":"README.md","pattern":"^# \\w+"}`, run, luxtest.Pass),
			c("no match", `{"path":"README.md","pattern":"^## "}`, run, luxtest.Fail),
			c("bad pattern", `{"path":"README.md","pattern":"("}`, nil, luxtest.Invalid),
		},
		"file-regex-count": {
			c("in range", `{"path":"README.md","pattern":"run","min":1}`, run, luxtest.Pass),
			c("too few", `{"path":"README.md","pattern":"TODO","min":1}`, run, luxtest.Fail),
			c("bad pattern", `{"path":"README.md","pattern":"("}`, nil, luxtest.Invalid),
		},
		"file-regex-set": {
			c("all", `{"path":"README.md","mode":"all","patterns":["^# ","run"]}`, run, luxtest.Pass),
			c("none", `{"path":"README.md","mode":"none","patterns":["run"]}`, run, luxtest.Fail),
			c("escape", `{"path":"../x","mode":"all","patterns":["x"]}`, nil, luxtest.Invalid),
		},
		"glob-count": {
			c("some", `{"glob":"*.md","min":1}`, run, luxtest.Pass), c("none", `{"glob":"*.go","min":1}`, run, luxtest.Fail),
			c("no glob", `{}`, nil, luxtest.Invalid),
		},
		"json-pointer-equals": {
			c("equal", `{"path":"data.json","pointer":"/n","value":3}`, run, luxtest.Pass),
			c("different", `{"path":"data.json","pointer":"/n","value":4}`, run, luxtest.Fail),
			c("bad pointer", `{"path":"data.json","pointer":"n","value":3}`, nil, luxtest.Invalid),
		},
		"command-exits-zero": {
			c("true", `{"command":"true"}`, run, luxtest.Pass), c("false", `{"command":"false"}`, run, luxtest.Fail),
			c("no command", `{}`, nil, luxtest.Invalid),
		},
		"contains": {
			c("said", `{"text":"README"}`, run, luxtest.Pass), c("not said", `{"text":"LICENSE"}`, run, luxtest.Fail),
			c("no text", `{}`, nil, luxtest.Invalid),
		},
		"not-contains": {
			c("not said", `{"text":"LICENSE"}`, run, luxtest.Pass), c("said", `{"text":"README"}`, run, luxtest.Fail),
			c("no text", `{}`, nil, luxtest.Invalid),
		},
		"regex": {
			c("matches", `{"pattern":"wrote the \\w+"}`, run, luxtest.Pass), c("no match", `{"pattern":"deleted"}`, run, luxtest.Fail),
			c("bad pattern", `{"pattern":"("}`, nil, luxtest.Invalid),
		},
		"tool-called": {
			c("called", `{"tool":"Write"}`, run, luxtest.Pass), c("not called", `{"tool":"Bash"}`, run, luxtest.Fail),
			c("no tool", `{}`, nil, luxtest.Invalid),
		},
		"tool-call-count": {
			c("in range", `{"max":1}`, run, luxtest.Pass), c("too few", `{"min":2}`, run, luxtest.Fail),
			c("wrong type", `{"min":"two"}`, nil, luxtest.Invalid),
		},
		"tool-called-with": {
			c("with", `{"tool":"Write","argsJsonPointer":"/file_path","argsValue":"README.md"}`, run, luxtest.Pass),
			c("not with", `{"tool":"Write","argsJsonPointer":"/file_path","argsValue":"x.md"}`, run, luxtest.Fail),
			c("no tool", `{}`, nil, luxtest.Invalid),
		},
		"tool-invocation": {
			c("resolved", `{"tool":"Write","result":"success"}`, run, luxtest.Pass),
			c("never called", `{"tool":"Bash","result":"any"}`, run, luxtest.Fail),
			c("no tool", `{}`, nil, luxtest.Invalid),
		},
		"tool-result-is-error": {
			c("not an error", `{"tool":"Write","expected":false}`, run, luxtest.Pass),
			c("no error", `{"tool":"Write"}`, run, luxtest.Fail),
			c("bad occurrence", `{"occurrence":"middle"}`, nil, luxtest.Invalid),
		},
		"tool-result-contains": {
			c("contains", `{"tool":"Write","text":"ok"}`, run, luxtest.Pass),
			c("does not", `{"tool":"Write","text":"failed"}`, run, luxtest.Fail),
			c("no text", `{"tool":"Write"}`, nil, luxtest.Invalid),
		},
		"tool-result-json-pointer-equals": {
			c("no result", `{"tool":"Bash","jsonPointer":"/x","value":1}`, run, luxtest.Fail),
			c("neither", `{"tool":"Write"}`, nil, luxtest.Invalid),
		},
		"no-error-results": {c("clean", `{}`, run, luxtest.Pass), c("empty", `{}`, nil, luxtest.Fail)},
		"interrupt-count": {
			c("in range", `{"max":1}`, run, luxtest.Pass), c("too many", `{"kind":"ask","max":0}`, run, luxtest.Fail),
			c("bad kind", `{"kind":"shout"}`, nil, luxtest.Invalid),
		},
		"latency-under": {
			c("fast", `{"max":"1m"}`, run, luxtest.Pass), c("slow", `{"max":"1ms"}`, run, luxtest.Fail),
			c("no max", `{}`, nil, luxtest.Invalid),
		},
		"tokens-under": {
			c("under", `{"max":1000}`, run, luxtest.Pass), c("over", `{"max":10}`, run, luxtest.Fail),
			c("no max", `{}`, nil, luxtest.Invalid),
		},
		"cost-under": {
			c("under", `{"maxUsd":1}`, run, luxtest.Pass), c("over", `{"maxUsd":0.1}`, run, luxtest.Fail),
			c("no max", `{}`, nil, luxtest.Invalid),
		},
		"artifact-bytes-under": {
			c("under", `{"max":1000}`, run, luxtest.Pass), c("over", `{"max":10}`, run, luxtest.Fail),
			c("no max", `{}`, nil, luxtest.Invalid),
		},
	}
	for _, p := range assertion.All() {
		t.Run(p.Type, func(t *testing.T) {
			cs, ok := cases[p.Type]
			if !ok {
				t.Fatalf("no conformance cases for the built-in %q: add them here", p.Type)
			}
			luxtest.TestAssertion(t, p, cs...)
		})
		delete(cases, p.Type)
	}
	for typ := range cases {
		t.Errorf("conformance cases for %q, which is not a built-in", typ)
	}
}
