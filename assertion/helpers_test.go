package assertion_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/luxtest"
)

// plugin returns the built-in of type typ.
func plugin(t *testing.T, typ string) *lux.AssertionPlugin {
	t.Helper()
	for _, p := range assertion.All() {
		if p.Type == typ {
			return p
		}
	}
	t.Fatalf("no built-in assertion %q", typ)
	return nil
}

// parse parses cfg (JSON) for typ, failing the test on error.
func parse(t *testing.T, typ, cfg string) lux.Check {
	t.Helper()
	c, err := plugin(t, typ).Parse(json.RawMessage(cfg))
	if err != nil {
		t.Fatalf("%s: Parse(%s): %v", typ, cfg, err)
	}
	return c
}

// grade parses and evaluates, failing the test on any error.
func grade(t *testing.T, typ, cfg string, run *lux.Run) lux.Result {
	t.Helper()
	res, err := parse(t, typ, cfg).Evaluate(context.Background(), run)
	if err != nil {
		t.Fatalf("%s %s: Evaluate: %v", typ, cfg, err)
	}
	return res
}

// workspace builds a run directory whose workspace is <dir>/artifacts:
//
//	README.md            "# Demo\n\n## Usage\nrun it\n"
//	data.json            a JSON document
//	log.txt              three lines with "error"
//	src/main.go, src/util.go, src/deep/x.go, src/.hidden.go, src/notes.txt
//	.git/config
//	huge.bin             11 MiB (sparse)
//	link.md           -> README.md
//	linkdir           -> src
//	escape            -> ../run.log
//
// and, in the run directory, run.log.
func workspace(t *testing.T) *lux.Run {
	t.Helper()
	files := map[string]string{
		"README.md":      "# Demo\n\n## Usage\nrun it\n",
		"data.json":      `{"name":"demo","version":3,"ratio":0.5,"tags":["a","b"],"nested":{"a/b":1,"t~":true},"nil":null,"big":12345678901234567890}`,
		"bad.json":       `{"name":`,
		"log.txt":        "error: one\nok\nERROR: two\nerror: three\nerror: four\n",
		"src/main.go":    "package main\n",
		"src/util.go":    "package main\n",
		"src/deep/x.go":  "package deep\n",
		"src/.hidden.go": "package main\n",
		"src/notes.txt":  "notes\n",
		".git/config":    "[core]\n",
	}
	written := luxtest.NewRun(t, files)
	dir, ws := written.Dir, written.Workspace
	if err := os.WriteFile(filepath.Join(dir, "run.log"), []byte("graded\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(ws, "huge.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(11 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for link, target := range map[string]string{"link.md": "README.md", "linkdir": "src", "escape": "../run.log"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	agentEnd := start.Add(90 * time.Second)
	return &lux.Run{
		Dir:       dir,
		Workspace: ws,
		Outcome: &lux.Outcome{
			ExitReason:   lux.ExitDone,
			StartedAt:    start,
			AgentEndedAt: agentEnd,
			EndedAt:      start.Add(10 * time.Minute),
		},
	}
}

func progress(kind string, v any) lux.Event {
	p := lux.NewProgress("p", kind, v)
	return lux.Event{Type: lux.EventProgress, Progress: &p}
}

func msg(text string) lux.Event { return progress(lux.KindAgentMessage, &lux.Message{Text: text}) }

func toolCall(name, id, parent string, input any) lux.Event {
	return progress(lux.KindToolCall, &lux.ToolCall{Name: name, ToolUseID: id, ParentToolUseID: parent, Input: input})
}

func interrupt(kind lux.InterruptKind, id string) lux.Event {
	return lux.Event{Type: lux.EventInterrupt, Interrupt: &lux.Interrupt{Kind: kind, ID: id, Question: "q?"}}
}

// evaluated is a test case of one evaluation.
type evaluated struct {
	name    string
	typ     string
	cfg     string
	run     func(*lux.Run) // adjusts the run before grading; may be nil
	pass    bool
	comment string         // exact comment, when not empty
	detail  map[string]any // keys that must be in the detail with these values
}

func runEvaluations(t *testing.T, tests []evaluated) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := workspace(t)
			if tt.run != nil {
				tt.run(run)
			}
			res := grade(t, tt.typ, tt.cfg, run)
			if res.Passed != tt.pass {
				t.Errorf("Passed = %v, want %v (comment %q, detail %v)", res.Passed, tt.pass, res.Comment, res.Detail)
			}
			wantScore := 0.0
			if tt.pass {
				wantScore = 1
			}
			if res.Score != wantScore {
				t.Errorf("Score = %v, want %v", res.Score, wantScore)
			}
			if tt.comment != "" && res.Comment != tt.comment {
				t.Errorf("Comment = %q, want %q", res.Comment, tt.comment)
			}
			if res.Comment == "" {
				t.Error("empty comment")
			}
			detail, _ := res.Detail.(map[string]any)
			for k, want := range tt.detail {
				got, ok := detail[k]
				if !ok {
					t.Errorf("detail has no %q: %v", k, detail)
					continue
				}
				if jsonOf(t, got) != jsonOf(t, want) {
					t.Errorf("detail[%q] = %s, want %s", k, jsonOf(t, got), jsonOf(t, want))
				}
			}
			if _, err := json.Marshal(res.Detail); err != nil {
				t.Errorf("detail is not JSON-encodable: %v", err)
			}
		})
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %v: %v", v, err)
	}
	return string(b)
}
