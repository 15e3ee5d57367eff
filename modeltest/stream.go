package modeltest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// An event is one server-sent event: an "event:" line with the name and a
// "data:" line with the JSON of data.
type event struct {
	name string
	data any
}

// writeStream answers with events as server-sent events, applying the
// failure f, if any, after f.After events: a Cut ends the body there, a
// Stall waits for ctx to end, a StreamError sends the event made by errEvent.
// It reports whether the connection must be dropped (f.Drop).
func writeStream(ctx context.Context, w http.ResponseWriter, events []event, f *Failure, errEvent func(sent int) event) (drop bool) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	n := len(events)
	if f != nil && f.After < n {
		n = f.After
	}
	for _, ev := range events[:n] {
		writeEvent(w, ev)
	}
	flush(w)
	switch {
	case f == nil:
	case f.Drop:
		return true
	case f.Stall:
		<-ctx.Done()
	case f.StreamError:
		writeEvent(w, errEvent(n))
		flush(w)
	}
	return false
}

func flush(w http.ResponseWriter) {
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
}

func writeEvent(w http.ResponseWriter, ev event) {
	data, err := json.Marshal(ev.data)
	if err != nil {
		// The events are built from maps of plain values; this cannot
		// happen unless a tool input changed after validation.
		data, _ = json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "api_error", "message": fmt.Sprintf("modeltest: encode event: %v", err)}})
	}
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.name, data)
}

// writeJSON answers with status and the JSON of v.
func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, fmt.Sprintf("modeltest: encode response: %v", err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// mergeDone returns a context that is done when a or b is done.
func mergeDone(a, b context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(a)
	stop := context.AfterFunc(b, cancel)
	return ctx, func() {
		stop()
		cancel()
	}
}
