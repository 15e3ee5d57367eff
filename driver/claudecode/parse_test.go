package claudecode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/golden"
)

// readLines returns the lines of a capture in testdata.
func readLines(t *testing.T, name string) [][]byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	require.NoError(t, err)
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<24)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	require.NoError(t, sc.Err())
	return lines
}

// lineWith returns the first line of a capture that contains all of subs.
func lineWith(t *testing.T, name string, subs ...string) []byte {
	t.Helper()
	for _, l := range readLines(t, name) {
		ok := true
		for _, s := range subs {
			ok = ok && bytes.Contains(l, []byte(s))
		}
		if ok {
			return l
		}
	}
	t.Fatalf("no line of %s contains %q", name, subs)
	return nil
}

// TestGolden parses each real capture in testdata and compares the events
// with the golden file beside it (go test -update rewrites them).
func TestGolden(t *testing.T) {
	captures, err := filepath.Glob("testdata/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, captures)
	for _, capture := range captures {
		name := strings.TrimSuffix(filepath.Base(capture), ".jsonl")
		t.Run(name, func(t *testing.T) {
			p := newParser()
			var got bytes.Buffer
			for _, l := range readLines(t, name+".jsonl") {
				out := p.Line(l)
				for _, e := range out.Events {
					b, err := json.Marshal(e)
					require.NoError(t, err)
					got.Write(b)
					got.WriteByte('\n')
				}
				for _, r := range out.Replies {
					got.WriteString("reply: ")
					got.Write(r)
					got.WriteByte('\n')
				}
			}
			golden.Equal(t, filepath.Join("testdata", name+".golden"), got.Bytes())
		})
	}
}

func TestSummaries(t *testing.T) {
	cost := func(v float64) *float64 { return &v }
	tests := []struct {
		name        string
		capture     string
		wantKinds   map[string]int
		wantUsage   []lux.TokenUsage // usage progress, in order
		wantDone    *lux.Done        // compared without Summary
		wantErr     *lux.ErrorEvent
		wantResults map[string]bool // tool-result toolUseId → isError
	}{
		{
			name:    "write and bash",
			capture: "write-bash.jsonl",
			wantKinds: map[string]int{
				lux.KindReasoning: 1, lux.KindAgentMessage: 2, lux.KindToolCall: 2, lux.KindToolResult: 2, lux.KindUsage: 3,
			},
			wantUsage: []lux.TokenUsage{
				{Input: 1000, Output: 50},
				{Input: 1200, Output: 30, CacheRead: 900},
				{Input: 1300, Output: 5},
			},
			wantDone:    &lux.Done{Usage: &lux.TokenUsage{Input: 3500, Output: 85, CacheRead: 900}, CostUSD: cost(0.012045), Turns: 3},
			wantResults: map[string]bool{"toolu_w1": false, "toolu_b1": false},
		},
		{
			name:        "permission mode dontAsk denies",
			capture:     "dontask.jsonl",
			wantKinds:   map[string]int{KindPermissionDenied: 2, lux.KindToolCall: 2, lux.KindToolResult: 2, lux.KindUsage: 3, lux.KindAgentMessage: 1},
			wantDone:    &lux.Done{Usage: &lux.TokenUsage{Input: 3000, Output: 150}, CostUSD: cost(0.01125), Turns: 3},
			wantResults: map[string]bool{"toolu_w1": true, "toolu_b1": true},
		},
		{
			name:      "api error after a retry",
			capture:   "api-error.jsonl",
			wantKinds: map[string]int{KindAPIRetry: 1, KindAPIError: 1, KindResult: 1},
			wantErr: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: "API Error: 500 boom from fake. This is a server-side issue, " +
				"usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:18080).",
				// What the result line reported spending: nothing, as zero.
				Usage: &lux.TokenUsage{}, CostUSD: new(0.0)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newParser()
			kinds := map[string]int{}
			var usage []lux.TokenUsage
			var terminal []lux.Event
			results := map[string]bool{}
			for _, l := range readLines(t, tt.capture) {
				for _, e := range p.Line(l).Events {
					switch {
					case e.Type == lux.EventProgress:
						kinds[e.Progress.Kind]++
						if e.Progress.Usage != nil {
							usage = append(usage, e.Progress.Usage.TokenUsage)
						}
						if r := e.Progress.ToolResult; r != nil {
							results[r.ToolUseID] = r.IsError
						}
					case e.Terminal():
						terminal = append(terminal, e)
					}
				}
			}
			if diff := cmp.Diff(tt.wantKinds, kinds); diff != "" {
				t.Errorf("progress kinds (-want +got):\n%s", diff)
			}
			if tt.wantUsage != nil {
				if diff := cmp.Diff(tt.wantUsage, usage); diff != "" {
					t.Errorf("usage per request (-want +got):\n%s", diff)
				}
			}
			if tt.wantResults != nil {
				if diff := cmp.Diff(tt.wantResults, results); diff != "" {
					t.Errorf("tool results (-want +got):\n%s", diff)
				}
			}
			require.Len(t, terminal, 1)
			got := terminal[0]
			if tt.wantDone != nil {
				require.Equal(t, lux.EventDone, got.Type, "terminal event: %+v", got.Error)
				d := *got.Done
				d.Summary = nil
				if diff := cmp.Diff(*tt.wantDone, d); diff != "" {
					t.Errorf("done (-want +got):\n%s", diff)
				}
			}
			if tt.wantErr != nil {
				require.Equal(t, lux.EventError, got.Type)
				if diff := cmp.Diff(*tt.wantErr, *got.Error); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
			}
			require.True(t, p.Terminal())
		})
	}
}
