package modeltest_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/internal/ctxtest"
	"github.com/luxeval/lux/modeltest"
)

func TestServerAddress(t *testing.T) {
	srv, err := modeltest.NewServer(modeltest.Script{{Text: "a"}})
	require.NoError(t, err)
	u, err := url.Parse(srv.URL())
	require.NoError(t, err)
	assert.Equal(t, "http", u.Scheme)
	assert.Equal(t, "127.0.0.1", u.Hostname())
	assert.NotEmpty(t, u.Port())
	assert.Equal(t, srv.URL()+"/v1", srv.OpenAIBaseURL())
	require.NoError(t, srv.Close())
	require.NoError(t, srv.Close(), "Close is idempotent")
	_, err = http.Get(srv.URL() + "/v1/models")
	require.Error(t, err, "a closed server does not answer")
}

func TestOtherEndpoints(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		path       string
		header     map[string]string
		wantStatus int
		wantKind   modeltest.Kind
		wantAPI    modeltest.API
		wantBody   string // a fragment of the body
	}{
		{"openai models", http.MethodGet, "/v1/models", nil, 200, modeltest.KindModels, modeltest.OpenAI, `"object":"list"`},
		{"anthropic models", http.MethodGet, "/v1/models", map[string]string{"anthropic-version": "2023-06-01"}, 200, modeltest.KindModels, modeltest.Anthropic, `"has_more":false`},
		{"unknown path", http.MethodGet, "/v1/files", nil, 404, modeltest.KindUnknown, "", `"type":"invalid_request_error"`},
		{"unknown anthropic path", http.MethodPost, "/v1/complete", map[string]string{"anthropic-version": "2023-06-01"}, 404, modeltest.KindUnknown, modeltest.Anthropic, `"type":"not_found_error"`},
		{"wrong method", http.MethodGet, "/v1/messages", nil, 404, modeltest.KindUnknown, "", `no endpoint GET /v1/messages`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.Start(t, modeltest.Script{{Text: "a"}})
			req, err := http.NewRequest(tt.method, srv.URL()+tt.path, nil)
			require.NoError(t, err)
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tt.wantStatus, resp.StatusCode)
			assert.Contains(t, string(body), tt.wantBody)
			reqs := srv.Requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, tt.wantKind, reqs[0].Kind)
			assert.Equal(t, tt.wantAPI, reqs[0].API)
			assert.Equal(t, tt.wantStatus, reqs[0].Status)
			assert.Equal(t, -1, reqs[0].Turn)
			assert.NoError(t, srv.Err(), "other endpoints are no script problem")
		})
	}
}

func TestProxyRequestsAreRefused(t *testing.T) {
	srv := modeltest.Start(t, modeltest.Script{})
	proxy, err := url.Parse(srv.URL())
	require.NoError(t, err)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}

	resp, err := client.Get("http://outside.invalid/telemetry")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)

	_, err = client.Get("https://outside.invalid/")
	require.Error(t, err, "CONNECT is refused")

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, modeltest.KindProxy, reqs[0].Kind)
	assert.Equal(t, "outside.invalid", reqs[0].Host)
	assert.Equal(t, modeltest.KindProxy, reqs[1].Kind)
	assert.Equal(t, http.MethodConnect, reqs[1].Method)
	assert.Equal(t, "outside.invalid:443", reqs[1].Host)

	env := strings.Join(srv.ProxyEnv(), " ")
	assert.Contains(t, env, "HTTPS_PROXY="+srv.URL())
	assert.Contains(t, env, "no_proxy=127.0.0.1,localhost")
}

func TestSideCallOptions(t *testing.T) {
	quota := anthropicBody(false, msg("user", "quota"))
	quota["max_tokens"] = 1
	delete(quota, "tools")
	haiku := anthropicBody(false, msg("user", "title this"))
	haiku["model"] = "claude-haiku-5-5"
	delete(haiku, "tools")
	haikuWithTools := anthropicBody(false, msg("user", "go"))
	haikuWithTools["model"] = "claude-haiku-5-5"

	tests := []struct {
		name     string
		opts     []modeltest.Option
		body     map[string]any
		wantKind modeltest.Kind
		wantText string
	}{
		{"quota probe", nil, quota, modeltest.KindSideCall, "OK"},
		{"small model without tools", nil, haiku, modeltest.KindSideCall, "OK"},
		{"small model with tools is a turn", nil, haikuWithTools, modeltest.KindTurn, "turn"},
		{"side text", []modeltest.Option{modeltest.WithSideText(`{"title":"t"}`)}, quota, modeltest.KindSideCall, `{"title":"t"}`},
		{"no side calls", []modeltest.Option{modeltest.WithSideCalls(nil)}, quota, modeltest.KindTurn, "turn"},
		{"custom rule", []modeltest.Option{modeltest.WithSideCalls(func(r *modeltest.Request) bool {
			return strings.Contains(r.UserText(), "go")
		})}, haikuWithTools, modeltest.KindSideCall, "OK"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.Start(t, modeltest.Script{{Text: "turn"}}, tt.opts...)
			status, _, body, err := post(t, srv, "/v1/messages", tt.body)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, status)
			var got map[string]any
			require.NoError(t, json.Unmarshal(body, &got))
			assert.Equal(t, tt.wantText, dig(got, "content", 0, "text"))
			assert.Equal(t, tt.wantKind, srv.Requests()[0].Kind)
		})
	}
}

func TestBadBodies(t *testing.T) {
	tests := []struct {
		name     string
		path     string
		body     string
		encoding string
		want     string
	}{
		{"anthropic not JSON", "/v1/messages", "{", "", "modeltest: decode messages request"},
		{"anthropic bad content", "/v1/messages", `{"messages":[{"role":"user","content":7}]}`, "", "modeltest: decode messages[0].content"},
		{"openai bad input", "/v1/responses", `{"input":7}`, "", "modeltest: decode input"},
		{"unsupported encoding", "/v1/responses", `{}`, "zstd", `modeltest: unsupported content-encoding "zstd"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.Start(t, modeltest.Script{{Text: "a"}})
			req, err := http.NewRequest(http.MethodPost, srv.URL()+tt.path, strings.NewReader(tt.body))
			require.NoError(t, err)
			if tt.encoding != "" {
				req.Header.Set("Content-Encoding", tt.encoding)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
			require.Error(t, srv.Err())
			assert.Contains(t, srv.Err().Error(), tt.want)
		})
	}
}

func TestGzipBody(t *testing.T) {
	srv := modeltest.Start(t, modeltest.Script{{Text: "unzipped"}})
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	require.NoError(t, json.NewEncoder(zw).Encode(openaiBody(false, userItem("go"))))
	require.NoError(t, zw.Close())
	req, err := http.NewRequest(http.MethodPost, srv.URL()+"/v1/responses", &buf)
	require.NoError(t, err)
	req.Header.Set("Content-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(body), "unzipped")
	assert.Equal(t, "go", srv.Requests()[0].UserText())
}

func TestConcurrentRequests(t *testing.T) {
	const n = 16
	srv := modeltest.Start(t, modeltest.Script{{Text: "a", Fail: &modeltest.Failure{Status: 500, Times: n / 2}}})
	var wg sync.WaitGroup
	statuses := make([]int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			b, _ := json.Marshal(anthropicBody(i%2 == 0, msg("user", fmt.Sprint(i))))
			resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", bytes.NewReader(b))
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			statuses[i] = resp.StatusCode
		}(i)
		_ = srv.Requests() // reading the log while requests arrive
	}
	wg.Wait()

	count := map[int]int{}
	for _, s := range statuses {
		count[s]++
	}
	assert.Equal(t, map[int]int{500: n / 2, 200: n / 2}, count)
	reqs := srv.Requests()
	require.Len(t, reqs, n)
	attempts := map[int]bool{}
	for i, r := range reqs {
		assert.Equal(t, i, r.Seq)
		attempts[r.Attempt] = true
	}
	assert.Len(t, attempts, n, "every attempt is numbered once")
}

func TestRequestsAreCopies(t *testing.T) {
	srv := modeltest.Start(t, modeltest.Script{{Text: "a"}})
	_, _, _, err := post(t, srv, "/v1/messages", anthropicBody(false, msg("user", "go")))
	require.NoError(t, err)
	got := srv.Requests()
	got[0].Body[0] = 'X'
	got[0].Messages[0].Content[0].Text = "changed"
	got[0].Header.Set("X-Api-Key", "changed")
	again := srv.Requests()[0]
	assert.Equal(t, byte('{'), again.Body[0])
	assert.Equal(t, "go", again.UserText())
	assert.Equal(t, "sk-test", again.Header.Get("X-Api-Key"))
}

func TestWaitRequests(t *testing.T) {
	srv := modeltest.Start(t, modeltest.Script{{Text: "a"}})

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := srv.WaitRequests(ctx, 1)
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "modeltest: waiting for 1 requests, got 0")

	done := make(chan []modeltest.Request)
	go func() {
		reqs, _ := srv.WaitRequests(context.Background(), 2)
		done <- reqs
	}()
	for i := 0; i < 2; i++ {
		_, _, _, err := post(t, srv, "/v1/messages", anthropicBody(false, msg("user", "go")))
		require.NoError(t, err)
	}
	select {
	case reqs := <-done:
		assert.Len(t, reqs, 2)
	case <-ctxtest.SafetyNet(t): // a safety net only
		t.Fatal("WaitRequests did not return")
	}
}

func TestCLIHelpers(t *testing.T) {
	srv := modeltest.Start(t, modeltest.Script{})
	assert.Contains(t, srv.ClaudeCodeEnv(), "ANTHROPIC_BASE_URL="+srv.URL())
	assert.Contains(t, srv.ClaudeCodeEnv(), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	args := srv.CodexArgs()
	assert.Contains(t, args, `model_providers.modeltest={name="modeltest",base_url="`+srv.URL()+`/v1",wire_api="responses"}`)
	assert.Contains(t, args, "model_provider=modeltest")
}
