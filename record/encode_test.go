package record

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type panickyJSON struct{}

func (panickyJSON) MarshalJSON() ([]byte, error) { panic("boom") }

// A value that does not encode is an error wrapping ErrUnencodable that
// leaves what was written before intact: the file as it was, the log's
// earlier lines, and no temporary file behind.
func TestUnencodableValuesLeaveTheRecordIntact(t *testing.T) {
	bad := map[string]any{
		"channel":       make(chan int),
		"NaN":           math.NaN(),
		"panic":         panickyJSON{},
		"malformed raw": lux.Event{Type: lux.EventProgress, Progress: &lux.Progress{Kind: "x", Payload: []byte("{oops")}},
	}
	for name, v := range bad {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "run.json")
			require.NoError(t, WriteJSON(path, map[string]int{"ok": 1}))
			err := WriteJSON(path, map[string]any{"v": v})
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrUnencodable), err.Error())
			assert.Contains(t, err.Error(), path)
			got, rerr := os.ReadFile(path)
			require.NoError(t, rerr)
			assert.JSONEq(t, `{"ok":1}`, string(got))
			entries, _ := os.ReadDir(dir)
			assert.Len(t, entries, 1, "no temporary file is left")

			log, err := CreateEventLog(filepath.Join(dir, EventsFile), LogOptions{})
			require.NoError(t, err)
			require.NoError(t, log.Append(progress(1, "before")))
			ev := lux.Event{Type: lux.EventDone, Done: &lux.Done{Summary: v}}
			if e, ok := v.(lux.Event); ok {
				ev = e
			}
			err = log.Append(ev)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrUnencodable), err.Error())
			var bad *UnencodableError
			require.True(t, errors.As(err, &bad), "the error carries the detail")
			assert.NotEmpty(t, bad.Detail)
			assert.NotContains(t, bad.Detail, ErrUnencodable.Error())
			assert.NotContains(t, bad.Detail, "json: ", "the detail does not repeat encoding/json's prefix")
			require.NoError(t, log.Append(progress(2, "after")))
			require.NoError(t, log.Close())
			events, err := ReadEvents(filepath.Join(dir, EventsFile))
			require.NoError(t, err)
			require.Len(t, events, 2)
			assert.Equal(t, "after", events[1].Progress.Message.Text)
		})
	}
}
