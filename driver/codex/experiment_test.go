package codex_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/codex"
)

func TestExperimentSupport(t *testing.T) {
	bin := findCodex(t)
	p := codex.Plugin()
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(p), "experiment support is complete")

	parsed := func(raw string) lux.DriverConfig {
		t.Helper()
		c, err := p.Parse(json.RawMessage(raw))
		require.NoError(t, err)
		return c
	}
	base := parsed(`{"command":"` + bin + `"}`)
	prepared, err := p.Experiment.Prepare(base)
	require.NoError(t, err)
	assert.Equal(t, false, *prepared.(*codex.Config).InheritEnv, "the host environment is not inherited")
	assert.Equal(t, true, *base.(*codex.Config).InheritEnv, "prepare leaves its input alone")

	id := func(c lux.DriverConfig) codex.Identity {
		t.Helper()
		v, err := p.Experiment.Identity(context.Background(), c, t.TempDir())
		require.NoError(t, err)
		return v.(codex.Identity)
	}
	a := id(base)
	assert.Equal(t, "0.169.0", a.CLIVersion)
	assert.Len(t, a.SHA256, 64)
	_, err = json.Marshal(a)
	require.NoError(t, err)

	assert.Equal(t, a, id(parsed(`{"command":"`+bin+`","idleTimeout":"1m","keepHome":true}`)), "limits do not shape behaviour")
	for _, other := range []string{
		`{"command":"` + bin + `","model":"gpt-5.6-sol"}`,
		`{"command":"` + bin + `","reasoningEffort":"high"}`,
		`{"command":"` + bin + `","mode":"app-server"}`,
		`{"command":"` + bin + `","config":{"model_verbosity":"high"}}`,
	} {
		assert.NotEqual(t, a.SettingsHash, id(parsed(other)).SettingsHash, other)
	}

	_, err = p.Experiment.Identity(context.Background(), parsed(`{"command":"/nonexistent/codex"}`), t.TempDir())
	assert.ErrorContains(t, err, "npm install -g @openai/codex")
}
