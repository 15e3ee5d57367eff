package modeltest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/modeltest"
)

// apiCase sends a first request for turn 0 in one API.
type apiCase struct {
	name string
	path string
	body func(stream bool) map[string]any
	// lastEvent is the name of the final event of a complete stream.
	lastEvent string
}

var apis = []apiCase{
	{"anthropic", "/v1/messages", func(stream bool) map[string]any { return anthropicBody(stream, msg("user", "go")) }, "message_stop"},
	{"openai", "/v1/responses", func(stream bool) map[string]any { return openaiBody(stream, userItem("go")) }, "response.completed"},
}

func TestStatusFailureTimes(t *testing.T) {
	for _, api := range apis {
		t.Run(api.name, func(t *testing.T) {
			srv := modeltest.Start(t, modeltest.Script{{Text: "finally", Fail: &modeltest.Failure{Status: 500, Times: 2}}})
			wantType := map[string]string{"anthropic": "api_error", "openai": "server_error"}[api.name]
			for attempt := 1; attempt <= 3; attempt++ {
				status, _, body, err := post(t, srv, api.path, api.body(true))
				require.NoError(t, err)
				if attempt <= 2 {
					require.Equal(t, http.StatusInternalServerError, status, "attempt %d", attempt)
					var got map[string]any
					require.NoError(t, json.Unmarshal(body, &got))
					assert.Equal(t, wantType, dig(got, "error", "type"))
					assert.Equal(t, "modeltest: injected status 500", dig(got, "error", "message"))
					continue
				}
				require.Equal(t, http.StatusOK, status, "attempt %d", attempt)
				events := parseSSE(t, body)
				assert.Equal(t, api.lastEvent, events[len(events)-1].Name)
			}
			var got []string
			for _, r := range srv.Requests() {
				got = append(got, r.Failure)
			}
			assert.Equal(t, []string{"status 500", "status 500", ""}, got)
		})
	}
}

func TestStatusFailureShape(t *testing.T) {
	tests := []struct {
		name     string
		api      apiCase
		fail     modeltest.Failure
		wantBody string
		header   string
	}{
		{
			name: "anthropic overloaded", api: apis[0],
			fail:     modeltest.Failure{Status: 529, Header: map[string]string{"retry-after": "0"}},
			wantBody: `{"type":"error","error":{"type":"overloaded_error","message":"modeltest: injected status 529"}}`,
			header:   "0",
		},
		{
			name: "anthropic bad request with message", api: apis[0],
			fail:     modeltest.Failure{Status: 400, Message: "prompt is too long"},
			wantBody: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}`,
		},
		{
			name: "openai rate limit", api: apis[1],
			fail:     modeltest.Failure{Status: 429, Type: "tokens"},
			wantBody: `{"error":{"type":"tokens","message":"modeltest: injected status 429","param":null,"code":null}}`,
		},
		{
			name: "raw body", api: apis[1],
			fail:     modeltest.Failure{Status: 503, Body: `{"oops":true}`},
			wantBody: `{"oops":true}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fail := tt.fail
			srv := modeltest.Start(t, modeltest.Script{{Text: "x", Fail: &fail}})
			b, err := json.Marshal(tt.api.body(true))
			require.NoError(t, err)
			resp, err := http.Post(srv.URL()+tt.api.path, "application/json", bytes.NewReader(b))
			require.NoError(t, err)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tt.fail.Status, resp.StatusCode)
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			assert.JSONEq(t, tt.wantBody, string(body))
			assert.Equal(t, tt.header, resp.Header.Get("retry-after"))
		})
	}
}

func TestStreamFailures(t *testing.T) {
	tests := []struct {
		name        string
		fail        modeltest.Failure
		wantEvents  int
		wantReadErr bool
		wantLast    map[string]string // API → name of the last event
	}{
		{name: "cut", fail: modeltest.Failure{Cut: true, After: 2}, wantEvents: 2},
		{name: "cut before any event", fail: modeltest.Failure{Cut: true}, wantEvents: 0},
		{name: "cut after the whole stream", fail: modeltest.Failure{Cut: true, After: 1000}, wantEvents: -1},
		{name: "drop", fail: modeltest.Failure{Drop: true, After: 3}, wantEvents: 3, wantReadErr: true},
		{
			name: "stream error", fail: modeltest.Failure{StreamError: true, After: 1, Message: "boom"}, wantEvents: 2,
			wantLast: map[string]string{"anthropic": "error", "openai": "response.failed"},
		},
	}
	for _, api := range apis {
		for _, tt := range tests {
			t.Run(api.name+"/"+tt.name, func(t *testing.T) {
				fail := tt.fail
				fail.Times = 1
				srv := modeltest.Start(t, modeltest.Script{{Text: "hello", Fail: &fail}})

				status, _, body, err := post(t, srv, api.path, api.body(true))
				require.Equal(t, http.StatusOK, status)
				if tt.wantReadErr {
					require.Error(t, err, "a dropped connection is a read error")
					body = body[:bytes.LastIndex(body, []byte("\n\n"))+2]
				} else {
					require.NoError(t, err)
				}
				events := parseSSE(t, body)
				if tt.wantEvents >= 0 {
					require.Len(t, events, tt.wantEvents)
				}
				if len(events) > 0 && tt.wantLast == nil {
					last := events[len(events)-1].Name
					assert.Equal(t, tt.wantEvents < 0, last == api.lastEvent, "last event %s", last)
				}
				if want := tt.wantLast[api.name]; want != "" {
					last := events[len(events)-1]
					assert.Equal(t, want, last.Name)
					if api.name == "anthropic" {
						assert.Equal(t, "api_error", dig(last.Data, "error", "type"))
						assert.Equal(t, "boom", dig(last.Data, "error", "message"))
					} else {
						assert.Equal(t, "failed", dig(last.Data, "response", "status"))
						assert.Equal(t, "server_error", dig(last.Data, "response", "error", "code"))
						assert.Equal(t, "boom", dig(last.Data, "response", "error", "message"))
					}
				}

				// The retry gets the whole turn.
				status, _, body, err = post(t, srv, api.path, api.body(true))
				require.NoError(t, err)
				require.Equal(t, http.StatusOK, status)
				events = parseSSE(t, body)
				assert.Equal(t, api.lastEvent, events[len(events)-1].Name)
				reqs := srv.Requests()
				require.Len(t, reqs, 2)
				assert.NotEmpty(t, reqs[0].Failure)
				assert.Empty(t, reqs[1].Failure)
			})
		}
	}
}

func TestNonStreamingFailures(t *testing.T) {
	tests := []struct {
		name       string
		fail       modeltest.Failure
		wantStatus int
		wantErr    bool
	}{
		{name: "cut", fail: modeltest.Failure{Cut: true}, wantStatus: http.StatusOK},
		{name: "drop", fail: modeltest.Failure{Drop: true}, wantErr: true},
		{name: "stream error", fail: modeltest.Failure{StreamError: true}, wantStatus: http.StatusInternalServerError},
	}
	for _, api := range apis {
		for _, tt := range tests {
			t.Run(api.name+"/"+tt.name, func(t *testing.T) {
				fail := tt.fail
				srv := modeltest.Start(t, modeltest.Script{{Text: "hello", Fail: &fail}})
				b, err := json.Marshal(api.body(false))
				require.NoError(t, err)
				resp, err := http.Post(srv.URL()+api.path, "application/json", bytes.NewReader(b))
				if tt.wantErr {
					require.Error(t, err)
					return
				}
				require.NoError(t, err)
				defer resp.Body.Close()
				body, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				assert.Equal(t, tt.wantStatus, resp.StatusCode)
				if tt.name == "cut" {
					assert.False(t, json.Valid(body), "a cut JSON answer is not valid JSON: %s", body)
				}
			})
		}
	}
}

func TestStall(t *testing.T) {
	for _, api := range apis {
		t.Run(api.name, func(t *testing.T) {
			srv := modeltest.Start(t, modeltest.Script{{Text: "hello", Fail: &modeltest.Failure{Stall: true, After: 1}}})

			// The client gives up after the first event; the server's
			// handler ends with it.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b, err := json.Marshal(api.body(true))
			require.NoError(t, err)
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+api.path, bytes.NewReader(b))
			require.NoError(t, err)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			r := bufio.NewReader(resp.Body)
			line, err := r.ReadString('\n')
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(line, "event: "), line)
			cancel()
			_, err = io.ReadAll(r)
			require.Error(t, err)

			// Close ends a stall that nobody gives up.
			b, err = json.Marshal(api.body(true))
			require.NoError(t, err)
			resp2, err := http.Post(srv.URL()+api.path, "application/json", bytes.NewReader(b))
			require.NoError(t, err)
			defer resp2.Body.Close()
			_, err = bufio.NewReader(resp2.Body).ReadString('\n')
			require.NoError(t, err)
			require.NoError(t, srv.Close())
			_, _ = io.ReadAll(resp2.Body) // returns: the server ended the stream

			reqs := srv.Requests()
			require.Len(t, reqs, 2)
			assert.Equal(t, "stall after 1 events", reqs[0].Failure)
			assert.Equal(t, 2, reqs[1].Attempt)
		})
	}
}

func TestPastTheEnd(t *testing.T) {
	for _, api := range apis {
		t.Run(api.name, func(t *testing.T) {
			srv := modeltest.Start(t, modeltest.Script{})
			status, _, body, err := post(t, srv, api.path, api.body(true))
			require.NoError(t, err)
			assert.Equal(t, http.StatusBadRequest, status)
			assert.Contains(t, string(body), "the script has 0 turns")
			err = srv.Err()
			require.Error(t, err)
			assert.True(t, errors.Is(err, modeltest.ErrScript))
			assert.Contains(t, err.Error(), "request 0 (POST "+api.path+"): the request asks for turn 0 (from 0) but the script has 0 turns")
		})
	}
}
