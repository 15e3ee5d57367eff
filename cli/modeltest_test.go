package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/cli"
	"github.com/luxeval/lux/internal/ctxtest"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// `lux modeltest serve -script FILE` serves the script until interrupted
// and says how to point Claude Code and Codex (and their lux drivers) at it.
func TestModeltestServe(t *testing.T) {
	script := filepath.Join(t.TempDir(), "script.json")
	require.NoError(t, os.WriteFile(script, []byte(`[{"text": "hello from the script"}]`), 0o644))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, registry(t), []string{"modeltest", "serve", "-script", script}, &stdout, &stderr)
	}()

	urlRE := regexp.MustCompile(`ANTHROPIC_BASE_URL=(http://127\.0\.0\.1:\d+)`)
	var base string
	require.Eventually(t, func() bool {
		m := urlRE.FindStringSubmatch(stdout.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	}, time.Minute, 10*time.Millisecond, "the base URL is printed\n%s\n%s", stdout.String(), stderr.String())
	out := stdout.String()
	for _, want := range []string{
		"ANTHROPIC_API_KEY=sk-modeltest",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		`"name":"claude-code"`, `"baseUrl":"` + base + `"`,
		`model_providers.modeltest={name="modeltest",base_url="` + base + `/v1"`,
		`"name":"codex"`, `"baseURL":"` + base + `/v1"`,
		"until interrupted",
	} {
		require.Contains(t, out, want)
	}

	body, err := json.Marshal(map[string]any{
		"model": "claude-test", "max_tokens": 100, "stream": false,
		"messages": []any{map[string]any{"role": "user", "content": "hi"}},
	})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, base+"/v1/messages", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(got))
	require.Contains(t, string(got), "hello from the script")

	cancel()
	select {
	case code := <-done:
		require.Equal(t, cli.ExitOK, code, stderr.String())
	case <-ctxtest.SafetyNet(t): // a safety net only
		t.Fatal("serve did not stop when interrupted")
	}
	require.Contains(t, stderr.String(), "1 request")
}

func TestModeltestServeRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`[{"tool_calls": [{"input": {}}]}]`), 0o644))
	good := filepath.Join(dir, "good.json")
	require.NoError(t, os.WriteFile(good, []byte(`[{"text": "hi"}]`), 0o644))
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"modeltest"}, "give a subcommand: serve"},
		{[]string{"modeltest", "serve"}, "-script: required"},
		{[]string{"modeltest", "serve", "-script", filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{"modeltest", "serve", "-script", bad}, "Name"},
		{[]string{"modeltest", "serve", "-script", good, "-addr", "0.0.0.0:0"}, "loopback"},
		{[]string{"modeltest", "serve", "-script", good, "extra"}, "no arguments"},
	} {
		code, _, errOut := run(t, registry(t), tt.args...)
		require.Equal(t, cli.ExitUsage, code, strings.Join(tt.args, " "))
		require.Contains(t, errOut, tt.want, strings.Join(tt.args, " "))
	}
}
