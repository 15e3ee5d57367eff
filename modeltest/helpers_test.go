package modeltest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/modeltest"
)

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	Name string
	Data map[string]any
}

// parseSSE parses an event stream; it fails the test on a malformed frame.
func parseSSE(t *testing.T, body []byte) []sseEvent {
	t.Helper()
	var (
		events []sseEvent
		cur    sseEvent
		data   string
	)
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		case line == "":
			require.NotEmpty(t, cur.Name, "event without an event: line")
			require.NoError(t, json.Unmarshal([]byte(data), &cur.Data), "data of %s", cur.Name)
			events = append(events, cur)
			cur, data = sseEvent{}, ""
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	require.Empty(t, cur.Name, "unterminated event")
	return events
}

func eventNames(events []sseEvent) []string {
	names := make([]string, len(events))
	for i, e := range events {
		names[i] = e.Name
	}
	return names
}

// post sends a JSON body to the server and returns the status, the content
// type and the body read in full (or as far as it could be read, with the
// read error).
func post(t *testing.T, srv *modeltest.Server, path string, body any) (int, string, []byte, error) {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, srv.URL()+path, bytes.NewReader(b))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if strings.Contains(path, "/messages") {
		req.Header.Set("anthropic-version", "2023-06-01")
		req.Header.Set("x-api-key", "sk-test")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	got, readErr := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), got, readErr
}

// anthropicBody is a Messages request with the given history.
func anthropicBody(stream bool, messages ...map[string]any) map[string]any {
	if messages == nil {
		messages = []map[string]any{}
	}
	return map[string]any{
		"model": "claude-test", "max_tokens": 1024, "stream": stream,
		"system":   []any{map[string]any{"type": "text", "text": "You are a test."}},
		"tools":    []any{map[string]any{"name": "Write", "input_schema": map[string]any{"type": "object"}}},
		"messages": messages,
	}
}

func msg(role string, content any) map[string]any {
	return map[string]any{"role": role, "content": content}
}

// openaiBody is a Responses request with the given input items.
func openaiBody(stream bool, input ...map[string]any) map[string]any {
	if input == nil {
		input = []map[string]any{}
	}
	return map[string]any{
		"model": "gpt-test", "stream": stream,
		"tools": []any{
			map[string]any{"type": "function", "name": "exec_command", "parameters": map[string]any{"type": "object"}},
			map[string]any{"type": "custom", "name": "apply_patch"},
			map[string]any{"type": "web_search"},
		},
		"input": input,
	}
}

func item(typ string, fields map[string]any) map[string]any {
	out := map[string]any{"type": typ}
	for k, v := range fields {
		out[k] = v
	}
	return out
}

func userItem(text string) map[string]any {
	return item("message", map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": text}}})
}

// dig returns the value at a path of map keys and slice indexes.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			s, ok := v.([]any)
			if !ok || k >= len(s) {
				return nil
			}
			v = s[k]
		}
	}
	return v
}
