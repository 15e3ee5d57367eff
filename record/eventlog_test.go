package record

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func progress(i int, text string) lux.Event {
	p := lux.NewProgress("m"+string(rune('a'+i%26)), lux.KindAgentMessage, &lux.Message{Text: text})
	return lux.Event{Type: lux.EventProgress, Time: time.Date(2025, 1, 1, 0, 0, i, 0, time.UTC), Progress: &p}
}

func TestEventLogRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), EventsFile)
	log, err := CreateEventLog(path, LogOptions{})
	require.NoError(t, err)
	want := []lux.Event{
		{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "echo", AgentVersion: "1"}},
		progress(1, "hello"),
		{Type: lux.EventInterrupt, Time: time.Date(2025, 1, 1, 0, 0, 2, 0, time.UTC), Interrupt: &lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "color?"}},
		{Type: lux.EventResponded, Time: time.Date(2025, 1, 1, 0, 0, 3, 0, time.UTC), Answer: &lux.Answer{Kind: lux.Ask, ID: "q1", Text: "blue"}},
		{Type: lux.EventLifecycle, Time: time.Date(2025, 1, 1, 0, 0, 4, 0, time.UTC), Stage: lux.StageCollectStart},
		{Type: lux.EventDone, Time: time.Date(2025, 1, 1, 0, 0, 5, 0, time.UTC), Done: &lux.Done{Usage: &lux.TokenUsage{Input: 3, Output: 4}}},
	}
	for _, e := range want {
		require.NoError(t, log.Append(e))
	}
	n, _ := log.Len()
	assert.Equal(t, len(want), n)
	require.NoError(t, log.Close())
	require.NoError(t, log.Close(), "second close")
	got, err := ReadEvents(path)
	require.NoError(t, err)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events read back (-want +got):\n%s", diff)
	}
}

func TestEventLogCaps(t *testing.T) {
	tests := []struct {
		name       string
		limits     LogOptions
		wantReason string
		maxWritten int
	}{
		{"events", LogOptions{MaxEvents: 5}, "run trace exceeded the 5-event limit", 4},
		{"bytes", LogOptions{MaxBytes: 2000}, "run trace exceeded the 2000-byte limit", 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), EventsFile)
			log, err := CreateEventLog(path, tt.limits)
			require.NoError(t, err)
			var first error
			appended := 0
			for i := range 100 {
				err := log.Append(progress(i, strings.Repeat("x", 100)))
				if err != nil {
					first = err
					break
				}
				appended++
			}
			require.Error(t, first)
			assert.True(t, errors.Is(first, ErrTraceLimit))
			assert.Contains(t, first.Error(), tt.wantReason)
			var limit *TraceLimitError
			require.True(t, errors.As(first, &limit), "the error carries the cap")
			assert.Equal(t, tt.wantReason, limit.Reason())
			assert.NoError(t, log.Append(progress(0, "after")), "appends after the cap are no-ops")
			require.Error(t, log.Exceeded())
			require.NoError(t, log.Close())

			events, err := ReadEvents(path)
			require.NoError(t, err)
			require.Len(t, events, appended+1)
			last := events[len(events)-1]
			require.Equal(t, lux.EventError, last.Type)
			assert.Equal(t, tt.wantReason, last.Error.Reason)
			fi, err := os.Stat(path)
			require.NoError(t, err)
			if tt.limits.MaxBytes > 0 {
				assert.LessOrEqual(t, fi.Size(), tt.limits.MaxBytes, "the diagnostic line fits under the cap")
			}
			if tt.limits.MaxEvents > 0 {
				assert.LessOrEqual(t, len(events), tt.limits.MaxEvents)
			}
		})
	}
}

func TestReadEventsErrors(t *testing.T) {
	dir := t.TempDir()
	good := `{"type":"ready","agentId":"a"}` + "\n"
	tests := []struct {
		name    string
		content string
		want    string
		n       int
	}{
		{"corrupt middle line", good + "{nope}\n" + good, ":2: corrupt event", 1},
		{"truncated last line", good + `{"type":"progress","id":"x`, ":2: truncated last line", 1},
		{"no type", `{"ts":"2026-01-02T03:04:05Z"}` + "\n", `:1: corrupt event: lux: event has no type`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".jsonl")
			require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o600))
			events, err := ReadEvents(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), path+tt.want)
			assert.Len(t, events, tt.n, "events before the bad line are returned")
		})
	}
	link := filepath.Join(dir, "link.jsonl")
	require.NoError(t, os.Symlink(filepath.Join(dir, "x"), link))
	_, err := ReadEvents(link)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a regular file")
}

func TestStderrLogCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), StderrFile)
	s := NewStderrLog(path, 10)
	_, err := os.Stat(path)
	assert.True(t, os.IsNotExist(err), "nothing written, no file")
	n, err := s.Write([]byte("0123456"))
	require.NoError(t, err)
	assert.Equal(t, 7, n)
	_, _ = s.Write([]byte("789abc"))
	_, _ = s.Write([]byte("def"))
	assert.Equal(t, int64(6), s.Dropped())
	assert.Equal(t, "0123456789abcdef", s.Tail())
	require.NoError(t, s.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "0123456789\n[lux: stderr exceeded the 10-byte limit; the rest is dropped]\n", string(b))
}

func TestStderrLogWithoutOutput(t *testing.T) {
	path := filepath.Join(t.TempDir(), StderrFile)
	s := NewStderrLog(path, 0)
	require.NoError(t, s.Close())
	_, _ = s.Write([]byte("late"))
	_, err := os.Stat(path)
	assert.True(t, os.IsNotExist(err))
	assert.Equal(t, "late", s.Tail())
}
