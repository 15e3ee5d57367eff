package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// response is one HTTP/1.1 response as a server writes it.
func response(contentType, body string, chunked bool) string {
	if !chunked {
		return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s", contentType, len(body), body)
	}
	return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", contentType, len(body), body)
}

// TestMeterCountsUsage: the usage of each response on a connection is
// counted, whatever the API's shape, streamed or not.
func TestMeterCountsUsage(t *testing.T) {
	anthropicStream := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":100,\"output_tokens\":1,\"cache_read_input_tokens\":50,\"cache_creation_input_tokens\":20}}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"hi\"}}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":30}}\n\n"
	openaiStream := "data: {\"type\":\"response.created\",\"response\":{}}\n\n" +
		"data: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":200,\"input_tokens_details\":{\"cached_tokens\":150},\"output_tokens\":7}}}\n\n"
	tests := []struct {
		name   string
		stream string
		want   *Tokens
	}{
		{"anthropic, streamed", response("text/event-stream", anthropicStream, true), &Tokens{Input: 100, Output: 30, CacheRead: 50, CacheCreation: 20, Responses: 1}},
		{"openai responses, streamed", response("text/event-stream; charset=utf-8", openaiStream, false), &Tokens{Input: 50, Output: 7, CacheRead: 150, Responses: 1}},
		{"a JSON response, twice on one connection",
			response("application/json", `{"usage":{"input_tokens":10,"output_tokens":2}}`, false) + response("application/json", `{"usage":{"prompt_tokens":5,"completion_tokens":1}}`, true),
			&Tokens{Input: 15, Output: 3, Responses: 2}},
		{"no usage", response("text/plain", "model", false), nil},
		{"not HTTP", "\x16\x03\x01 a TLS record", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *Tokens
			done := make(chan struct{}, 8)
			m := &meter{counted: func(tk Tokens) { got = &tk; done <- struct{}{} }}
			w := m.watch()
			if _, err := io.Copy(w, strings.NewReader(tt.stream)); err != nil {
				t.Fatal(err)
			}
			w.Close()
			if tt.want != nil {
				for range tt.want.Responses {
					<-done
				}
			}
			m.mu.Lock()
			defer m.mu.Unlock()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tokens (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUsageInIgnoresOtherBodies: a JSON body without usage counts nothing.
func TestUsageInIgnoresOtherBodies(t *testing.T) {
	resp := &http.Response{Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader([]byte(`{"data":[]}`)))}
	if _, ok := usageIn(resp); ok {
		t.Error("counted a body without usage")
	}
}
