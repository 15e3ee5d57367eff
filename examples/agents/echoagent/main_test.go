package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decode reads the agent's stdout the way the subprocess driver does.
func decode(t *testing.T, out []byte) []lux.Event {
	t.Helper()
	var events []lux.Event
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		e, ok := driver.DecodeLuxJSONL(sc.Bytes())
		require.True(t, ok, "not a lux-jsonl line: %s", sc.Text())
		events = append(events, e)
	}
	return events
}

func kinds(events []lux.Event) []string {
	var out []string
	for _, e := range events {
		s := string(e.Type)
		if e.Progress != nil {
			s += ":" + e.Progress.Kind
		}
		out = append(out, s)
	}
	return out
}

func TestEchoAgent(t *testing.T) {
	tests := []struct {
		name   string
		prompt string
		stdin  string
		kinds  []string
		files  map[string]string
		reason string
	}{
		{"write", `Write hello.txt containing "hello, world".`, "",
			[]string{"ready", "progress:tool-call", "progress:tool-result", "done"}, map[string]string{"hello.txt": "hello, world"}, ""},
		{"ask then write", `say "hi". ask "Which color?" and write the answer to color.txt`, `{"type":"answer","id":"other","text":"x"}` + "\n" + `{"type":"answer","id":"q2","text":"blue"}` + "\n",
			[]string{"ready", "progress:agent-message", "interrupt", "progress:tool-call", "progress:tool-result", "done"}, map[string]string{"color.txt": "blue\n"}, ""},
		{"unanswered", `ask "Which color?" and write the answer to color.txt`, "",
			[]string{"ready", "interrupt", "error"}, nil, "stdin closed before question q1 was answered"},
		{"fail", `fail "no can do"`, "", []string{"ready", "error"}, nil, "no can do"},
		{"unknown instruction", "dance", "", []string{"ready", "progress:agent-message", "done"}, nil, ""},
		{"escape refused", `write ../x.txt containing "x"`, "", []string{"ready", "progress:tool-call", "progress:tool-result", "done"}, nil, ""},
		{"empty", "", "", []string{"ready", "error"}, nil, "the prompt is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var out bytes.Buffer
			require.NoError(t, run(tt.prompt, dir, strings.NewReader(tt.stdin), &out))
			events := decode(t, out.Bytes())
			assert.Equal(t, tt.kinds, kinds(events))
			for name, want := range tt.files {
				b, err := os.ReadFile(filepath.Join(dir, name))
				require.NoError(t, err)
				assert.Equal(t, want, string(b))
			}
			last := events[len(events)-1]
			if tt.reason != "" {
				assert.Equal(t, tt.reason, last.Error.Reason)
			} else {
				require.NotNil(t, last.Done)
				require.NotNil(t, last.Done.Usage, "usage is reported")
				assert.Positive(t, last.Done.Usage.Input)
			}
		})
	}
	_, err := os.Stat(filepath.Join(t.TempDir(), "..", "x.txt"))
	assert.True(t, os.IsNotExist(err))
}
