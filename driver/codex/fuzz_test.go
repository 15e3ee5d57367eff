package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luxeval/lux"
)

// fuzzSeeds adds every capture under dir, whole and line by line, without
// the client's side of app-server exchanges.
func fuzzSeeds(f *testing.F, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		var server [][]byte
		for _, l := range bytes.Split(b, []byte("\n")) {
			if !bytes.HasPrefix(l, []byte(">> ")) {
				server = append(server, l)
				f.Add(l)
			}
		}
		f.Add(bytes.Join(server, []byte("\n")))
	}
}

// FuzzExecParser feeds hostile `codex exec --json` output to the parser:
// it must never panic, and every event must encode as JSON.
func FuzzExecParser(f *testing.F) {
	fuzzSeeds(f, "testdata/exec")
	f.Add([]byte(`{"type":"item.completed","item":{"type":"file_change","changes":[{"path":1}]}}`))
	f.Add([]byte(`{"type":"turn.completed","usage":{"input_tokens":-5,"cached_input_tokens":1e308}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := newExecParser(parseOptions{Model: "m", CLIVersion: "v"})
		for _, l := range bytes.Split(data, []byte("\n")) {
			for _, ev := range p.Line(l) {
				mustEncode(t, ev)
			}
		}
		_ = p.LastError()
	})
}

// FuzzAppProtocol feeds hostile app-server messages to the protocol,
// answering every interrupt: it must never panic, and every event and
// message it sends must encode as JSON.
func FuzzAppProtocol(f *testing.F) {
	fuzzSeeds(f, "testdata/appserver")
	f.Add([]byte(`{"id":1,"result":{}}` + "\n" + `{"id":2,"result":{"thread":{"id":"t"}}}` + "\n" +
		`{"id":"x","method":"item/tool/requestUserInput","params":{"questions":[{"id":1,"options":[null]}]}}`))
	f.Add([]byte(`{"id":9,"method":"mcpServer/elicitation/request","params":{"requestedSchema":{"properties":{"a":{"type":"boolean"}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := testAppOptions()
		opts.MaxInterrupts = 3
		p := newAppProtocol(opts)
		if !json.Valid(p.Start()) {
			t.Fatal("start message is not JSON")
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			events, send := p.Line(l)
			for _, m := range send {
				if !json.Valid(m) {
					t.Fatalf("message to send is not JSON: %q", m)
				}
			}
			for _, ev := range events {
				mustEncode(t, ev)
				if ev.Type != lux.EventInterrupt {
					continue
				}
				in := ev.Interrupt
				reply, err := p.Answer(lux.Answer{Kind: in.Kind, ID: in.ID, Text: "Blue", Approved: !strings.Contains(in.ID, "n")})
				if err == nil && !json.Valid(reply) {
					t.Fatalf("reply is not JSON: %q", reply)
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
