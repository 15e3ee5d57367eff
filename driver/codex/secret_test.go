package codex_test

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
	"github.com/luxeval/lux/driver/codex"
	"github.com/luxeval/lux/modeltest"
)

// A provider key named by envKey reaches the CLI from this process's
// environment even when the host environment is not inherited (the
// controlled-experiment form), so it never has to be written in a
// config; and nothing the run leaves behind holds it.
func TestProviderKeyStaysOutOfRecords(t *testing.T) {
	findCodex(t)
	const secret = "sk-review-codex-4be81d02c7"
	t.Setenv("LUX_REVIEW_OPENAI_KEY", secret)
	srv := modeltest.Start(t, modeltest.Script{{Text: "hello"}})
	cfg := driverConfig(t, srv, map[string]any{"keepHome": true})
	cfg["provider"].(map[string]any)["envKey"] = "LUX_REVIEW_OPENAI_KEY"
	res, _ := loop(t, &lux.Case{
		ID:         "secret",
		Prompt:     "Say hello.",
		Driver:     &lux.PluginRef{Name: codex.Name, Config: cfg},
		Assertions: []lux.AssertionSpec{assertion.RunSucceeded()},
	})
	require.Equal(t, lux.ExitDone, res.Metadata.ExitReason, res.Metadata.Reason)
	sent := false
	for _, req := range srv.Requests() {
		sent = sent || req.Header.Get("Authorization") == "Bearer "+secret
	}
	assert.True(t, sent, "the CLI never sent the key")
	assertNoSecret(t, res.Dir, secret)

	p := codex.Plugin()
	raw, err := json.Marshal(cfg)
	require.NoError(t, err)
	dc, err := p.Parse(raw)
	require.NoError(t, err)
	prepared, err := p.Experiment.Prepare(dc)
	require.NoError(t, err)
	id, err := p.Experiment.Identity(context.Background(), prepared, t.TempDir())
	require.NoError(t, err)
	for _, v := range []any{dc, prepared, id} {
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
		assert.False(t, strings.Contains(string(b), secret[len(secret)-10:]), "%s holds the key", path)
		return nil
	}))
	require.NotZero(t, n, "no record under %s", dir)
}
