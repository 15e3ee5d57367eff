package codex_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/codex"
	"github.com/luxeval/lux/internal/drivertest"
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
	drivertest.KeySent(t, srv, "Authorization", "Bearer "+secret)
	raw, err := json.Marshal(cfg)
	require.NoError(t, err)
	drivertest.SecretStaysOut(t, codex.Plugin(), raw, res.Dir, secret)
}
