package claudecode_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/modeltest"
)

// The key of apiKeyEnv reaches the CLI and nothing the run leaves behind:
// not the config, its experiment form or identity, not the run record.
func TestAPIKeyStaysOutOfRecords(t *testing.T) {
	const secret = "sk-ant-review-7f3a9c1e5b"
	t.Setenv("LUX_REVIEW_ANTHROPIC_KEY", secret)
	res, srv := runCase(t, &lux.Case{
		ID:         "secret",
		Prompt:     "Say hello.",
		Assertions: []lux.AssertionSpec{assertion.RunSucceeded()},
	}, modeltest.Script{
		{ToolCalls: []modeltest.ToolCall{{Name: "Bash", Input: map[string]any{"command": "echo hi > hi.txt", "description": "say hi"}}}},
		{Text: "hello"},
	}, map[string]any{
		"apiKeyEnv":      "LUX_REVIEW_ANTHROPIC_KEY",
		"env":            map[string]string{},
		"permissionMode": "bypassPermissions",
	})
	requirePassed(t, res)
	sent := false
	for _, req := range srv.Requests() {
		sent = sent || req.Header.Get("X-Api-Key") == secret
	}
	assert.True(t, sent, "the CLI never sent the key")
	assertNoSecret(t, res.Dir, secret)

	raw, err := json.Marshal(map[string]any{"apiKeyEnv": "LUX_REVIEW_ANTHROPIC_KEY", "command": "/bin/true"})
	require.NoError(t, err)
	p := claudecode.Plugin()
	cfg, err := p.Parse(raw)
	require.NoError(t, err)
	prepared, err := p.Experiment.Prepare(cfg)
	require.NoError(t, err)
	id, err := p.Experiment.Identity(context.Background(), prepared, t.TempDir())
	require.NoError(t, err)
	for _, v := range []any{cfg, prepared, id} {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		assert.NotContains(t, string(b), secret)
	}
}

// assertNoSecret fails for every file under dir that holds secret, or
// its last ten characters.
func assertNoSecret(t *testing.T, dir, secret string) {
	t.Helper()
	n := 0
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		n++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// A CLI may keep only the end of a key (to recognise it later).
		assert.False(t, strings.Contains(string(b), secret[len(secret)-10:]), "%s holds the key", path)
		return nil
	}))
	require.NotZero(t, n, "no record under %s", dir)
}
