package cursor

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux"
)

// FuzzParser feeds hostile stream-json to the parser, line by line, then
// finishes it: it must never panic, and every event must encode as JSON.
func FuzzParser(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false)
		for _, l := range bytes.Split(b, []byte("\n")) {
			f.Add(l, true)
		}
	}
	f.Add([]byte(`{"type":"tool_call","subtype":"completed","call_id":"a\nb","tool_call":{"shellToolCall":{"result":{"rejected":{}}}}}`), false)
	f.Add([]byte(`{"type":"result","usage":{"inputTokens":"12","outputTokens":-1},"duration_ms":"x"}`), false)
	f.Fuzz(func(t *testing.T, data []byte, partial bool) {
		p := newParser(parseOptions{Model: "auto", CLIVersion: "v", Partial: partial})
		for _, l := range bytes.Split(data, []byte("\n")) {
			for _, ev := range p.Line(l) {
				mustEncode(t, ev)
			}
		}
		for _, ev := range p.Finish() {
			mustEncode(t, ev)
		}
	})
}

func mustEncode(t *testing.T, ev lux.Event) {
	t.Helper()
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatalf("event %s does not encode: %v", ev.Type, err)
	}
	var back lux.Event
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("event %s does not decode: %v\n%s", ev.Type, err, b)
	}
}
