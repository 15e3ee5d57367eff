package driver_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

// FuzzDecodeLuxJSONL decodes hostile lines: no panic, and every event it
// accepts is well formed and encodes as a run record line.
func FuzzDecodeLuxJSONL(f *testing.F) {
	for _, s := range []string{
		`{"type":"ready","agentId":"a","agentVersion":"1","model":"m","detail":{"k":1}}`,
		`{"type":"progress","id":"m1","kind":"agent-message","payload":{"text":"hi"},"ts":1700000000000}`,
		`{"type":"progress","id":"tc-1","kind":"tool-call","payload":{"name":"Bash","input":{"cmd":"ls"},"toolUseId":"1"}}`,
		`{"type":"progress","id":"u","kind":"usage","payload":{"input":1e300}}`,
		`{"type":"progress","id":"x","kind":"k","ts":1e300}`,
		`{"type":"interrupt","kind":"ask","id":"q1","question":"Which?","context":{"options":["a","b"]}}`,
		`{"type":"interrupt","kind":"approve","id":"a1","request":{"tool":"rm"}}`,
		`{"type":"interrupt","kind":"custom","id":"c1","payload":null}`,
		`{"type":"done","summary":{"usage":{"input":10,"output":5},"cost":0.25,"turns":3}}`,
		`{"type":"done","summary":{"turns":1e30}}`,
		`{"type":"error","exitReason":"idle-timeout","reason":"x"}`,
		"not json", `{"type":`, "{\"type\":\"ready\",\"agentId\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		ev, ok := driver.DecodeLuxJSONL(line)
		if !ok {
			return
		}
		switch {
		case ev.Type == lux.EventReady && ev.Ready == nil,
			ev.Type == lux.EventProgress && ev.Progress == nil,
			ev.Type == lux.EventInterrupt && ev.Interrupt == nil,
			ev.Type == lux.EventDone && ev.Done == nil,
			ev.Type == lux.EventError && ev.Error == nil:
			t.Fatalf("%s event without its payload", ev.Type)
		}
		if ev.Done != nil && ev.Done.Turns < 0 {
			t.Fatalf("negative turns %d", ev.Done.Turns)
		}
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatalf("event does not encode: %v", err)
		}
		var back lux.Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("event does not decode: %v\n%s", err, b)
		}
	})
}

// FuzzLineReader checks the reader against bytes.Split, whatever the
// sizes of the reads: every line under the cap comes back whole, a longer
// one is ErrLineTooLong.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc\n"), uint16(3), false)
	f.Add([]byte("a\r\nb\r\n"), uint16(1), true)
	f.Add([]byte("12345\n123456\n"), uint16(5), true)
	f.Add([]byte("h\xc3\xa9llo\n\xe2\x82"), uint16(10), true)
	f.Fuzz(func(t *testing.T, data []byte, max uint16, oneByte bool) {
		if max == 0 {
			max = 1
		}
		var r io.Reader = bytes.NewReader(data)
		if oneByte {
			r = iotest.OneByteReader(r)
		} else {
			r = iotest.HalfReader(r)
		}
		lr := driver.NewLineReader(r, int(max))
		want := bytes.Split(data, []byte("\n"))
		if len(want[len(want)-1]) == 0 {
			want = want[:len(want)-1] // the input ends with a newline
		}
		for i, w := range want {
			w = bytes.TrimSuffix(w, []byte("\r"))
			got, err := lr.ReadLine()
			if len(w) > int(max) {
				if !errors.Is(err, driver.ErrLineTooLong) {
					t.Fatalf("line %d: %d bytes over the cap %d: got %q, %v", i, len(w), max, got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("line %d: %v", i, err)
			}
			if !bytes.Equal(got, w) {
				t.Fatalf("line %d: got %q, want %q", i, got, w)
			}
		}
		if _, err := lr.ReadLine(); err != io.EOF {
			t.Fatalf("after the last line: %v, want EOF", err)
		}
	})
}
