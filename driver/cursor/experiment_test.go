package cursor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExperimentPrepare(t *testing.T) {
	exp := Plugin().Experiment
	require.NotNil(t, exp)
	assert.NotEmpty(t, exp.Version)

	cfg, err := Parse(json.RawMessage(`{"env":{"A":"1"},"extraArgs":["--add-dir","/x"]}`))
	require.NoError(t, err)
	prepared, err := exp.Prepare(cfg)
	require.NoError(t, err)
	p := prepared.(*Config)
	assert.False(t, *p.InheritEnv, "a controlled run does not inherit the host environment")
	assert.True(t, *cfg.InheritEnv, "the original config is unchanged")

	p.Env["A"] = "changed"
	p.ExtraArgs[1] = "/changed"
	assert.Equal(t, "1", cfg.Env["A"], "the prepared config shares nothing")
	assert.Equal(t, "/x", cfg.ExtraArgs[1])

	// The prepared config is still a valid config.
	b, err := json.Marshal(prepared)
	require.NoError(t, err)
	_, err = Parse(b)
	require.NoError(t, err)
}

func TestExperimentIdentity(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cli-config.json"), []byte(`{"permissions":{"allow":[]}}`), 0o644))
	raw, err := json.Marshal(map[string]any{"command": fakeCLI, "env": map[string]string{"CURSOR_CONFIG_DIR": dir}})
	require.NoError(t, err)
	cfg, err := Parse(raw)
	require.NoError(t, err)

	got, err := Plugin().Experiment.Identity(context.Background(), cfg, t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, Identity{
		CLIVersion: "2026.09.10-fake001",
		ConfigDir:  dir,
		UserFiles: map[string]string{
			"cli-config.json": "3f528b91f0e9dfc5e6af72fa8cf17b69b87c18b964cc4b2e1f0d8a4baf5d236f",
			"mcp.json":        "absent",
			"hooks.json":      "absent",
		},
	}, got)

	// A changed user config changes the identity.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cli-config.json"), []byte(`{"approvalMode":"unrestricted"}`), 0o644))
	again, err := Plugin().Experiment.Identity(context.Background(), cfg, t.TempDir())
	require.NoError(t, err)
	assert.NotEqual(t, got, again)
}

func TestExperimentIdentityMissingCLI(t *testing.T) {
	cfg, err := Parse(json.RawMessage(`{"command":"/nonexistent/cursor-agent"}`))
	require.NoError(t, err)
	_, err = Plugin().Experiment.Identity(context.Background(), cfg, t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), InstallHint)
}

func TestConfigDir(t *testing.T) {
	t.Setenv("CURSOR_CONFIG_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", "/xdg")
	t.Setenv("HOME", "/home/u")
	tests := []struct {
		name string
		raw  string
		want string
	}{
		{"from env", `{"env":{"CURSOR_CONFIG_DIR":"/cfg"}}`, "/cfg"},
		{"XDG from the host", `{}`, "/xdg/cursor"},
		{"XDG from env wins", `{"env":{"XDG_CONFIG_HOME":"/other"}}`, "/other/cursor"},
		{"not inherited: HOME", `{"inheritEnv":false,"env":{"HOME":"/h"}}`, "/h/.cursor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(json.RawMessage(tt.raw))
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg.configDir())
		})
	}
}
