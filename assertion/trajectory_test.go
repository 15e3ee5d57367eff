package assertion_test

import (
	"testing"
	"time"

	"github.com/luxeval/lux"
)

func events(es ...lux.Event) func(*lux.Run) {
	return func(r *lux.Run) { r.Events = es }
}

var conversation = events(
	msg("Let me look at the repo."),
	interrupt(lux.Ask, "q1"),
	lux.Event{Type: lux.EventResponded, Answer: &lux.Answer{Kind: lux.Ask, ID: "q1", Text: "use postgres please"}},
	toolCall("Bash", "t1", "", map[string]any{"command": "go test ./...", "timeout": 120}),
	toolCall("Read", "t2", "", map[string]any{"file_path": "README.md"}),
	toolCall("Task", "t3", "", map[string]any{"prompt": "search"}),
	toolCall("Bash", "t4", "t3", map[string]any{"command": "grep -r TODO ."}),
	toolCall("Bash", "t5", "", struct {
		Command string `json:"command"`
	}{"go vet ./..."}),
	interrupt(lux.Approve, "a1"),
	interrupt(lux.Approve, "a2"),
	msg("All tests pass.\nDone: 3 files changed."),
)

func TestTranscriptAssertions(t *testing.T) {
	runEvaluations(t, []evaluated{
		{name: "final contains", typ: "contains", cfg: `{"text":"tests pass"}`, run: conversation, pass: true,
			comment: `the agent's final message contains "tests pass"`},
		{name: "final does not contain an earlier message", typ: "contains", cfg: `{"text":"look at the repo"}`, run: conversation,
			comment: `the agent's final message does not contain "look at the repo"`, detail: map[string]any{"excerpt": "All tests pass.\nDone: 3 files changed."}},
		{name: "all contains an earlier message", typ: "contains", cfg: `{"text":"look at the repo","against":"transcript-all"}`, run: conversation, pass: true,
			comment: `the agent's messages contain "look at the repo"`},
		{name: "answers are not the transcript", typ: "contains", cfg: `{"text":"postgres","against":"transcript-all"}`, run: conversation},
		{name: "contains with no message", typ: "contains", cfg: `{"text":"x"}`, comment: "the agent wrote no message"},
		{name: "not-contains passes", typ: "not-contains", cfg: `{"text":"FAIL"}`, run: conversation, pass: true,
			comment: `the agent's final message does not contain "FAIL"`},
		{name: "not-contains fails", typ: "not-contains", cfg: `{"text":"Done"}`, run: conversation,
			comment: `the agent's final message contains "Done"`, detail: map[string]any{"offset": 16}},
		{name: "not-contains all", typ: "not-contains", cfg: `{"text":"repo","against":"transcript-all"}`, run: conversation},
		{name: "not-contains with no message", typ: "not-contains", cfg: `{"text":"x"}`, pass: true, comment: "the agent wrote no message"},
		{name: "regex", typ: "regex", cfg: `{"pattern":"(\\d+) files? changed"}`, run: conversation, pass: true,
			comment: `the agent's final message matches /(\d+) files? changed/`, detail: map[string]any{"match": "3 files changed"}},
		{name: "regex multi-line", typ: "regex", cfg: `{"pattern":"^Done:","flags":"m"}`, run: conversation, pass: true},
		{name: "regex without m", typ: "regex", cfg: `{"pattern":"^Done:"}`, run: conversation,
			comment: `the agent's final message does not match /^Done:/`},
		{name: "regex ignore case", typ: "regex", cfg: `{"pattern":"all TESTS","flags":"i"}`, run: conversation, pass: true},
		{name: "regex all", typ: "regex", cfg: `{"pattern":"repo.*\\n.*pass","against":"transcript-all"}`, run: conversation, pass: true},
		{name: "regex with no message", typ: "regex", cfg: `{"pattern":"x"}`, comment: "the agent wrote no message"},
	})
}

func TestToolAssertions(t *testing.T) {
	runEvaluations(t, []evaluated{
		{name: "called", typ: "tool-called", cfg: `{"tool":"Bash"}`, run: conversation, pass: true,
			comment: `"Bash" called 3 times: 3 >= 1`, detail: map[string]any{"calls": 3, "minTimes": 1}},
		{name: "not called", typ: "tool-called", cfg: `{"tool":"Write"}`, run: conversation,
			comment: `"Write" called 0 times: 0 < min 1`},
		{name: "called by main", typ: "tool-called", cfg: `{"tool":"Bash","by":"main","minTimes":2,"maxTimes":2}`, run: conversation, pass: true,
			comment: `"Bash" called 2 times by the main agent: 2 >= 2, <= 2`},
		{name: "called by subagent", typ: "tool-called", cfg: `{"tool":"Bash","by":"subagent","minTimes":2}`, run: conversation,
			comment: `"Bash" called 1 time by subagents: 1 < min 2`},
		{name: "maxTimes alone allows zero", typ: "tool-called", cfg: `{"tool":"Write","maxTimes":0}`, run: conversation, pass: true,
			comment: `"Write" called 0 times: 0 >= 0, <= 0`},
		{name: "maxTimes exceeded", typ: "tool-called", cfg: `{"tool":"Bash","maxTimes":2}`, run: conversation,
			comment: `"Bash" called 3 times: 3 > max 2`},

		{name: "count all", typ: "tool-call-count", cfg: `{"max":5}`, run: conversation, pass: true,
			comment: `5 tool calls: 5 <= 5`},
		{name: "count all over", typ: "tool-call-count", cfg: `{"max":4}`, run: conversation,
			comment: `5 tool calls: 5 > max 4`},
		{name: "count one tool", typ: "tool-call-count", cfg: `{"tool":"Read","min":1,"max":1}`, run: conversation, pass: true,
			comment: `1 call of "Read": 1 >= 1, <= 1`},
		{name: "count by main", typ: "tool-call-count", cfg: `{"by":"main","min":5}`, run: conversation,
			comment: `4 tool calls by the main agent: 4 < min 5`},
		{name: "count none", typ: "tool-call-count", cfg: `{"max":0}`, pass: true},

		{name: "with value", typ: "tool-called-with", cfg: `{"tool":"Bash","argsJsonPointer":"/command","argsValue":"go test ./..."}`, run: conversation, pass: true,
			detail: map[string]any{"hits": 1, "calls": 3}},
		{name: "with number value", typ: "tool-called-with", cfg: `{"tool":"Bash","argsJsonPointer":"/timeout","argsValue":120.0}`, run: conversation, pass: true},
		{name: "with value mismatch", typ: "tool-called-with", cfg: `{"tool":"Bash","argsJsonPointer":"/command","argsValue":"go test"}`, run: conversation,
			comment: `0 of 3 calls of "Bash" had input/command = "go test": 0 < min 1`},
		{name: "with contains", typ: "tool-called-with", cfg: `{"tool":"Bash","argsJsonPointer":"/command","argsContains":"go ","minTimes":2}`, run: conversation, pass: true,
			comment: `2 of 3 calls of "Bash" had input/command containing "go ": 2 >= 2`},
		{name: "with contains typed input", typ: "tool-called-with", cfg: `{"tool":"Bash","argsJsonPointer":"/command","argsContains":"vet"}`, run: conversation, pass: true},
		{name: "with contains on JSON text", typ: "tool-called-with", cfg: `{"tool":"Read","argsContains":"\"file_path\":\"README.md\""}`, run: conversation, pass: true},
		{name: "with contains by main excludes subagent", typ: "tool-called-with", cfg: `{"tool":"Bash","argsContains":"grep","by":"main"}`, run: conversation,
			detail: map[string]any{"hits": 0, "calls": 2}},
		{name: "with pointer only", typ: "tool-called-with", cfg: `{"tool":"Bash","argsJsonPointer":"/timeout"}`, run: conversation, pass: true,
			comment: `1 of 3 calls of "Bash" had input/timeout: 1 >= 1`},
		{name: "with name only", typ: "tool-called-with", cfg: `{"tool":"Task"}`, run: conversation, pass: true},
		{name: "with no call", typ: "tool-called-with", cfg: `{"tool":"Write","argsContains":"x"}`, run: conversation,
			detail: map[string]any{"calls": 0, "inputs": []string{}}},
	})
}

func TestRunAssertions(t *testing.T) {
	usage := func(u *lux.TokenUsage, cost *float64) func(*lux.Run) {
		return func(r *lux.Run) { r.Outcome.Usage = lux.Usage{Agent: u, AgentCostUSD: cost} }
	}
	cost := func(v float64) *float64 { return &v }
	tokens := &lux.TokenUsage{Input: 1000, Output: 500, CacheRead: 20000, CacheCreation: 300}
	runEvaluations(t, []evaluated{
		{name: "succeeded", typ: "run-succeeded", cfg: `{}`, pass: true, comment: `the run ended with exit reason "done"`},
		{name: "not succeeded", typ: "run-succeeded", cfg: `{}`,
			run: func(r *lux.Run) {
				r.Outcome.ExitReason, r.Outcome.Reason = lux.ExitIdleTimeout, "no event for 2m0s"
			},
			comment: `the run ended with exit reason "idle-timeout": no event for 2m0s`, detail: map[string]any{"exitReason": "idle-timeout"}},

		{name: "interrupts", typ: "interrupt-count", cfg: `{"max":3}`, run: conversation, pass: true, comment: "3 interrupts: 3 <= 3"},
		{name: "approve interrupts", typ: "interrupt-count", cfg: `{"kind":"approve","max":1}`, run: conversation,
			comment: "2 approve interrupts: 2 > max 1"},
		{name: "ask interrupts", typ: "interrupt-count", cfg: `{"kind":"ask","min":1,"max":1}`, run: conversation, pass: true,
			comment: "1 ask interrupt: 1 >= 1, <= 1"},
		{name: "no interrupts", typ: "interrupt-count", cfg: `{"min":1}`, comment: "0 interrupts: 0 < min 1"},

		{name: "latency under", typ: "latency-under", cfg: `{"max":"90s"}`, pass: true, comment: "took 1m30s <= max 1m30s",
			detail: map[string]any{"durationMs": 90000}},
		{name: "latency over", typ: "latency-under", cfg: `{"max":89999}`, comment: "took 1m30s > max 1m29.999s"},
		{name: "latency without agent end uses end", typ: "latency-under", cfg: `{"max":"5m"}`,
			run: func(r *lux.Run) { r.Outcome.AgentEndedAt = time.Time{} }, comment: "took 10m0s > max 5m0s"},

		{name: "tokens total is input+output", typ: "tokens-under", cfg: `{"max":1500}`, run: usage(tokens, nil), pass: true,
			comment: "total tokens 1500 <= max 1500"},
		{name: "tokens over", typ: "tokens-under", cfg: `{"max":1499}`, run: usage(tokens, nil), comment: "total tokens 1500 > max 1499"},
		{name: "tokens cache read", typ: "tokens-under", cfg: `{"max":10000,"component":"cacheRead"}`, run: usage(tokens, nil),
			comment: "cacheRead tokens 20000 > max 10000"},
		{name: "tokens input", typ: "tokens-under", cfg: `{"max":1000,"component":"input"}`, run: usage(tokens, nil), pass: true},
		{name: "tokens output", typ: "tokens-under", cfg: `{"max":499,"component":"output"}`, run: usage(tokens, nil)},
		{name: "tokens cache creation", typ: "tokens-under", cfg: `{"max":300,"component":"cacheCreation"}`, run: usage(tokens, nil), pass: true},
		{name: "zero tokens are a measure", typ: "tokens-under", cfg: `{"max":0,"onUnavailable":"fail"}`, run: usage(&lux.TokenUsage{}, nil), pass: true},
		{name: "tokens unavailable pass", typ: "tokens-under", cfg: `{"max":10}`, run: usage(nil, nil), pass: true,
			comment: "the agent's token usage is unavailable; passing (onUnavailable: pass)", detail: map[string]any{"unavailable": true}},
		{name: "tokens unavailable fail", typ: "tokens-under", cfg: `{"max":10,"onUnavailable":"fail"}`, run: usage(nil, nil),
			comment: "the agent's token usage is unavailable; failing (onUnavailable: fail)"},

		{name: "cost under", typ: "cost-under", cfg: `{"maxUsd":0.5}`, run: usage(tokens, cost(0.42)), pass: true, comment: "cost $0.4200 <= max $0.5000"},
		{name: "cost over", typ: "cost-under", cfg: `{"maxUsd":0.4}`, run: usage(tokens, cost(0.42)), comment: "cost $0.4200 > max $0.4000"},
		{name: "cost unavailable pass", typ: "cost-under", cfg: `{"maxUsd":0.4}`, run: usage(tokens, nil), pass: true,
			comment: "the agent's cost is unavailable; passing (onUnavailable: pass)"},
		{name: "cost unavailable fail", typ: "cost-under", cfg: `{"maxUsd":0.4,"onUnavailable":"fail"}`, run: usage(tokens, nil)},

		{name: "artifact bytes under", typ: "artifact-bytes-under", cfg: `{"max":300}`,
			run: func(r *lux.Run) {
				r.Artifacts = []lux.Artifact{{Path: "a", Size: 100}, {Path: "b", Size: 200}}
			}, pass: true, comment: "artifacts 300 bytes <= max 300", detail: map[string]any{"bytes": 300, "count": 2}},
		{name: "artifact bytes over", typ: "artifact-bytes-under", cfg: `{"max":299}`,
			run: func(r *lux.Run) {
				r.Artifacts = []lux.Artifact{{Path: "a", Size: 100}, {Path: "b", Size: 200}}
			}, comment: "artifacts 300 bytes > max 299"},
		{name: "artifact bytes from metadata", typ: "artifact-bytes-under", cfg: `{"max":10}`,
			run:     func(r *lux.Run) { r.Outcome.ArtifactCount, r.Outcome.ArtifactBytes = 3, 11 },
			comment: "artifacts 11 bytes > max 10"},
		{name: "artifacts not collected pass", typ: "artifact-bytes-under", cfg: `{"max":10}`,
			run: func(r *lux.Run) {
				r.Outcome.FailedPhase = "collection"
			}, pass: true, comment: "the artifacts' sizes are unavailable; passing (onUnavailable: pass)"},
		{name: "artifacts not collected fail", typ: "artifact-bytes-under", cfg: `{"max":10,"onUnavailable":"fail"}`,
			run: func(r *lux.Run) {
				r.Outcome.FailedPhase = "collection"
			}, comment: "the artifacts' sizes are unavailable; failing (onUnavailable: fail)"},
	})
}

func TestRunAssertionsWithoutMetadataAreErrors(t *testing.T) {
	for typ, cfg := range map[string]string{
		"run-succeeded": `{}`,
		"latency-under": `{"max":"1s"}`,
		"tokens-under":  `{"max":1}`,
		"cost-under":    `{"maxUsd":1}`,
	} {
		t.Run(typ, func(t *testing.T) {
			_, err := parse(t, typ, cfg).Evaluate(t.Context(), &lux.Run{Workspace: t.TempDir()})
			want := "assertion: " + typ + ": the run has no metadata (run.json)"
			if err == nil || err.Error() != want {
				t.Errorf("Evaluate = %v, want %q", err, want)
			}
		})
	}
	_, err := parse(t, "file-exists", `{"path":"x"}`).Evaluate(t.Context(), nil)
	if err == nil || err.Error() != "assertion: file-exists: no run to grade" {
		t.Errorf("Evaluate(nil) = %v", err)
	}
}
