package assertion_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/luxtest"
)

// fuzzRun is one run shared by every fuzz iteration: a workspace with a few
// files, a symlink and a named pipe, and a trajectory with messages, tool
// calls and interrupts.
func fuzzRun(f *testing.F) (*lux.Run, error) {
	files := map[string]string{
		"a.txt":       "alpha\nbeta\nalpha\n",
		"d.json":      `{"a":[1,{"b":"c"}],"~/":null,"n":1.5}`,
		"src/x.go":    "package x\n",
		"src/y/z.go":  "package y\n",
		".hidden/h":   "h",
		"empty.txt":   "",
		"run-ignored": "x",
	}
	written := luxtest.NewRun(f, files)
	dir, ws := written.Dir, written.Workspace
	_ = os.Symlink("a.txt", filepath.Join(ws, "link"))
	_ = os.Symlink("..", filepath.Join(ws, "up"))
	_ = mkfifo(filepath.Join(ws, "pipe"))
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	cost := 0.25
	p := func(kind string, v any) lux.Event {
		pr := lux.NewProgress("p", kind, v)
		return lux.Event{Type: lux.EventProgress, Progress: &pr}
	}
	return &lux.Run{
		Dir: dir, Workspace: ws,
		Outcome: &lux.Outcome{
			ExitReason: lux.ExitDone, StartedAt: start, EndedAt: start.Add(time.Minute),
			Usage:         lux.Usage{Agent: &lux.TokenUsage{Input: 10, Output: 5}, AgentCostUSD: &cost},
			ArtifactCount: 7, ArtifactBytes: 80,
		},
		Events: []lux.Event{
			p(lux.KindAgentMessage, &lux.Message{Text: "first"}),
			p(lux.KindToolCall, &lux.ToolCall{Name: "Bash", ToolUseID: "1", Input: map[string]any{"command": "ls > x", "n": 1}}),
			p(lux.KindToolCall, &lux.ToolCall{Name: "Bash", ToolUseID: "2", ParentToolUseID: "1", Input: []any{1, "a", nil}}),
			p(lux.KindToolCall, &lux.ToolCall{Name: "Read", ToolUseID: "3", Input: nil}),
			{Type: lux.EventInterrupt, Interrupt: &lux.Interrupt{Kind: lux.Ask, ID: "q", Question: "why?"}},
			p(lux.KindAgentMessage, &lux.Message{Text: "done: 3 files\nok"}),
		},
	}, nil
}

// fuzzParse parses raw for typ and, when it parses, grades the shared run
// (unless evaluate is false). A config either parses or is refused with
// ErrInvalidConfig and a problem per field; a grade is a score in [0,1]
// with a comment and a JSON-encodable detail, or an error.
func fuzzParse(f *testing.F, typ string, evaluate bool, seeds ...string) {
	var plugin *lux.AssertionPlugin
	for _, p := range assertion.All() {
		if p.Type == typ {
			plugin = p
		}
	}
	if plugin == nil {
		f.Fatalf("no built-in %q", typ)
	}
	for _, s := range append(seeds, ``, `null`, `{}`, `[]`, `"x"`, `{"in":"run"}`, `{"min":-1,"max":1e30}`, `{"x":{"y":1}}`) {
		f.Add(s)
	}
	run, err := fuzzRun(f)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		check, err := plugin.Parse(json.RawMessage(raw))
		if err != nil {
			if !errors.Is(err, lux.ErrInvalidConfig) {
				t.Fatalf("Parse(%s) = %v, not wrapping ErrInvalidConfig", raw, err)
			}
			for _, e := range lux.ProblemsOf(err) {
				if e.Error() == "" {
					t.Fatalf("Parse(%s): an empty problem in %v", raw, err)
				}
			}
			return
		}
		if !evaluate {
			return
		}
		res, err := check.Evaluate(context.Background(), run)
		if err != nil {
			return
		}
		if math.IsNaN(res.Score) || res.Score < 0 || res.Score > 1 || res.Passed != (res.Score == 1) {
			t.Fatalf("%s %s: result %+v", typ, raw, res)
		}
		if res.Comment == "" {
			t.Fatalf("%s %s: no comment", typ, raw)
		}
		if _, err := json.Marshal(res.Detail); err != nil {
			t.Fatalf("%s %s: detail %v: %v", typ, raw, res.Detail, err)
		}
	})
}

func FuzzParseRunSucceeded(f *testing.F) { fuzzParse(f, "run-succeeded", true, `{"a":1}`) }

func FuzzParseFileExists(f *testing.F) {
	fuzzParse(f, "file-exists", true, `{"path":"a.txt"}`, `{"path":"link"}`, `{"path":"pipe"}`, `{"path":"up/run-ignored"}`,
		`{"path":"src/../../x"}`, `{"path":"/etc/passwd"}`, `{"path":"a\u0000b"}`, `{"path":"src","in":"run"}`)
}

func FuzzParseFileContains(f *testing.F) {
	fuzzParse(f, "file-contains", true, `{"path":"a.txt","text":"beta"}`, `{"path":"pipe","text":"x"}`, `{"path":"link","text":"a"}`,
		`{"path":"a.txt","text":""}`, `{"path":"a.txt","text":"x","in":"nowhere"}`)
}

func FuzzParseFileMatches(f *testing.F) {
	fuzzParse(f, "file-matches", true, `{"path":"a.txt","pattern":"^beta$","flags":"m"}`, `{"path":"a.txt","pattern":"(","flags":"g"}`,
		`{"path":"a.txt","pattern":"a(?=b)"}`, `{"path":"a.txt","pattern":"x","flags":"imsims"}`)
}

func FuzzParseFileRegexCount(f *testing.F) {
	fuzzParse(f, "file-regex-count", true, `{"path":"a.txt","pattern":"alpha","min":1,"max":2}`, `{"path":"a.txt","pattern":"a*","min":1}`,
		`{"path":"a.txt","pattern":"a","max":9223372036854775807}`, `{"path":"a.txt","pattern":"a","min":0}`, `{"path":"a.txt","pattern":"a","min":3,"max":2}`)
}

func FuzzParseGlobCount(f *testing.F) {
	fuzzParse(f, "glob-count", true, `{"glob":"**/*.go","min":1}`, `{"glob":"{src,.hidden}/**","max":3}`, `{"glob":"/etc/*","min":1}`,
		`{"glob":"../*","min":1}`, `{"glob":"a**b","min":1}`, `{"glob":"{a,{b,{c,d}}}","min":0,"max":9}`, `{"glob":"{{{{{{{{","min":1}`,
		`{"glob":"[","min":1}`, `{"glob":"\\","min":1}`, `{"glob":"{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}","min":1}`)
}

func FuzzParseJSONPointerEquals(f *testing.F) {
	fuzzParse(f, "json-pointer-equals", true, `{"path":"d.json","pointer":"/a/1/b","value":"c"}`, `{"path":"d.json","pointer":"/~0~1","value":null}`,
		`{"path":"d.json","pointer":"/a/-","value":1}`, `{"path":"d.json","pointer":"a","value":1}`, `{"path":"d.json","pointer":"/~2","value":1}`,
		`{"path":"d.json","pointer":"/n","value":15e-1}`, `{"path":"d.json"}`)
}

// command-exits-zero is parsed only: a fuzzed command is not run.
func FuzzParseCommandExitsZero(f *testing.F) {
	fuzzParse(f, "command-exits-zero", false, `{"command":"true","timeout":"1s","cwd":"src","env":{"A":"1"},"inheritEnv":["HOME"]}`,
		`{"command":"true","inheritEnv":true}`, `{"command":"true","inheritEnv":false}`, `{"command":"true","inheritEnv":[""]}`,
		`{"command":"true","env":{"A=B":"1"}}`, `{"command":"true","timeout":-1}`, `{"command":"true","timeout":"forever"}`,
		`{"command":"true","timeout":1e300}`, `{"command":" "}`)
}

func FuzzParseContains(f *testing.F) {
	fuzzParse(f, "contains", true, `{"text":"ok"}`, `{"text":"first","against":"transcript-all"}`, `{"text":"x","against":"all"}`)
}

func FuzzParseNotContains(f *testing.F) {
	fuzzParse(f, "not-contains", true, `{"text":"ok"}`, `{"text":"first","against":"transcript-all"}`)
}

func FuzzParseRegex(f *testing.F) {
	fuzzParse(f, "regex", true, `{"pattern":"^ok$","flags":"m"}`, `{"pattern":"\\d+ files","against":"transcript-all"}`, `{"pattern":"(?P<x>a)|\\1"}`)
}

func FuzzParseToolCalled(f *testing.F) {
	fuzzParse(f, "tool-called", true, `{"tool":"Bash"}`, `{"tool":"Bash","minTimes":2,"maxTimes":1}`, `{"tool":"Bash","maxTimes":0,"by":"main"}`,
		`{"tool":"Bash","by":"nobody"}`, `{"name":"Bash"}`)
}

func FuzzParseToolCallCount(f *testing.F) {
	fuzzParse(f, "tool-call-count", true, `{"max":3}`, `{"tool":"Bash","min":1,"by":"subagent"}`)
}

func FuzzParseToolCalledWith(f *testing.F) {
	fuzzParse(f, "tool-called-with", true, `{"tool":"Bash","argsJsonPointer":"/command","argsContains":">"}`,
		`{"tool":"Bash","argsJsonPointer":"/0","argsValue":1.0}`, `{"tool":"Read","argsValue":null}`,
		`{"tool":"Bash","argsValue":1,"argsContains":"x"}`, `{"tool":"Bash","minTimes":0}`, `{"tool":"Bash","argsJsonPointer":"/2/x"}`)
}

func FuzzParseInterruptCount(f *testing.F) {
	fuzzParse(f, "interrupt-count", true, `{"kind":"ask","min":1}`, `{"kind":"other","max":1}`)
}

func FuzzParseLatencyUnder(f *testing.F) {
	fuzzParse(f, "latency-under", true, `{"max":"90s"}`, `{"max":0}`, `{"max":1e300}`, `{"max":"-1s"}`, `{"max":0.001}`)
}

func FuzzParseTokensUnder(f *testing.F) {
	fuzzParse(f, "tokens-under", true, `{"max":10}`, `{"max":1,"component":"cacheRead","onUnavailable":"fail"}`, `{"max":-1}`, `{"component":"total"}`)
}

func FuzzParseCostUnder(f *testing.F) {
	fuzzParse(f, "cost-under", true, `{"maxUsd":0.1}`, `{"maxUsd":-0}`, `{"maxUsd":1e308,"onUnavailable":"maybe"}`)
}

func FuzzParseArtifactBytesUnder(f *testing.F) {
	fuzzParse(f, "artifact-bytes-under", true, `{"max":100}`, `{"max":0,"onUnavailable":"fail"}`, `{"max":1.5}`)
}
