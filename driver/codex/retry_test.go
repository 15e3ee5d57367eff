package codex

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
)

func TestRetryWatch(t *testing.T) {
	notice := progressEvent("e", KindCodexError, map[string]any{"message": "Reconnecting... waiting for network", "willRetry": true})
	final := progressEvent("e", KindCodexError, map[string]any{"message": "bad request", "willRetry": false})
	msg := progressEvent("m", lux.KindAgentMessage, &lux.Message{Text: "hi"})
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name  string
		steps []lux.Event
		at    []time.Duration // when each step is seen
		stop  int             // index of the step that ends the run, or -1
	}{
		{"notices past the limit end the run", []lux.Event{notice, notice, notice}, []time.Duration{0, 5 * time.Second, 11 * time.Second}, 2},
		{"notices within the limit do not", []lux.Event{notice, notice}, []time.Duration{0, 9 * time.Second}, -1},
		{"progress between notices starts over", []lux.Event{notice, msg, notice, notice}, []time.Duration{0, 8 * time.Second, 9 * time.Second, 18 * time.Second}, -1},
		{"an error the CLI does not retry is progress", []lux.Event{notice, final, notice}, []time.Duration{0, 1 * time.Second, 12 * time.Second}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := retryWatch{limit: 10 * time.Second}
			for i, e := range tc.steps {
				got := w.observe([]lux.Event{e}, t0.Add(tc.at[i]))
				if i != tc.stop {
					assert.Nil(t, got, "step %d", i)
					continue
				}
				require.NotNil(t, got, "step %d", i)
				assert.Equal(t, lux.ExitIdleTimeout, got.Error.ExitReason)
				assert.Equal(t, "codex made no progress for 10s, only retrying: Reconnecting... waiting for network", got.Error.Reason)
			}
		})
	}
}
