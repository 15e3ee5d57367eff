package claudecode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux"
)

// FuzzParser feeds hostile stream-json to the parser, line by line,
// answering every interrupt it raises. It must never panic, and every
// event and reply it produces must encode as JSON (a run record holds them).
func FuzzParser(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		for _, l := range bytes.Split(b, []byte("\n")) {
			f.Add(l)
		}
	}
	f.Add([]byte(`{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool","tool_name":"AskUserQuestion","input":{"questions":[{"question":1}]}}}`))
	f.Add([]byte(`{"type":"result","subtype":"success","is_error":true,"usage":{"input_tokens":-1},"modelUsage":{"m":null}}`))
	f.Add([]byte("{\"type\":\"assistant\",\"message\":{\"content\":\"\xff\xfe\"}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := newParser()
		for _, l := range bytes.Split(data, []byte("\n")) {
			out := p.Line(l)
			for _, r := range out.Replies {
				if !json.Valid(r) {
					t.Fatalf("reply is not JSON: %q", r)
				}
			}
			for _, ev := range out.Events {
				mustEncode(t, ev)
				if ev.Type != lux.EventInterrupt {
					continue
				}
				in := ev.Interrupt
				b, err := p.Answer(lux.Answer{Kind: in.Kind, ID: in.ID, Text: "yes", Approved: true, Payload: map[string]any{"a": 1}})
				if err == nil && b != nil && !json.Valid(b) {
					t.Fatalf("answer is not JSON: %q", b)
				}
			}
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
