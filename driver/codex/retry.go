package codex

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/luxeval/lux"
)

// retryWatch ends a run whose CLI does nothing but retry. A CLI that
// cannot reach its model provider retries without end ("Reconnecting...
// waiting for network"), whatever its retry settings, and each notice is
// an event that would re-arm the idle clock; retryWatch treats a run of
// notices longer than the idle timeout as the agent being idle.
type retryWatch struct {
	limit time.Duration
	since time.Time // first notice of the current run of notices
}

// observe looks at the events of one line, seen at now, and returns the
// idle-timeout error when notices alone have lasted longer than limit.
func (w *retryWatch) observe(events []lux.Event, now time.Time) *lux.Event {
	if w.limit <= 0 {
		return nil
	}
	for _, e := range events {
		msg, retry := retryNotice(e)
		if !retry {
			w.since = time.Time{}
			continue
		}
		if w.since.IsZero() {
			w.since = now
			continue
		}
		if now.Sub(w.since) > w.limit {
			return &lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{
				ExitReason: lux.ExitIdleTimeout,
				Reason:     fmt.Sprintf("codex made no progress for %s, only retrying: %s", w.limit, msg),
			}}
		}
	}
	return nil
}

// retryNotice reports whether e is a codex-error progress saying the CLI
// will retry, and its message.
func retryNotice(e lux.Event) (string, bool) {
	if e.Type != lux.EventProgress || e.Progress.Kind != KindCodexError {
		return "", false
	}
	var p struct {
		Message   string `json:"message"`
		WillRetry bool   `json:"willRetry"`
	}
	if json.Unmarshal(e.Progress.Payload, &p) != nil {
		return "", false
	}
	return p.Message, p.WillRetry
}
