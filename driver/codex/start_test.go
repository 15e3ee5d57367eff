package codex

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
)

func TestStartErrors(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "codex")
	require.NoError(t, os.WriteFile(exe, []byte("#!/bin/sh\nexit 0\n"), 0o755))
	tests := []struct {
		name string
		cfg  string
		ws   bool // create the workspace
		want string
	}{
		{"missing executable names the install hint", `{"command":"/nonexistent/codex"}`, true,
			`codex: "/nonexistent/codex" is not installed or not executable (install it with "npm install -g @openai/codex", or set command to its path)`},
		{"missing workspace", `{"command":"` + exe + `"}`, false, "is not a directory"},
		{"provider key not set", `{"command":"` + exe + `","inheritEnv":false,"provider":{"baseURL":"http://127.0.0.1:1/v1","envKey":"LUX_TEST_NO_SUCH_KEY"}}`, true,
			"codex: provider.envKey LUX_TEST_NO_SUCH_KEY is not set: set it in env (the host environment is not inherited)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(json.RawMessage(tc.cfg))
			require.NoError(t, err)
			dir := t.TempDir()
			ws := filepath.Join(dir, "artifacts")
			if tc.ws {
				require.NoError(t, os.Mkdir(ws, 0o755))
			}
			s, err := c.Start(context.Background(), lux.StartInfo{Prompt: "p", RunDir: dir, Workspace: ws})
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Contains(t, err.Error(), tc.want)
			entries, _ := os.ReadDir(filepath.Join(dir, HomeDir))
			for _, e := range entries {
				assert.Equal(t, "config.toml", e.Name(), "a failed start leaves only config.toml")
			}
		})
	}
}

func TestEnviron(t *testing.T) {
	t.Setenv("LUX_TEST_HOST_VAR", "host")
	c, err := Parse(json.RawMessage(`{"inheritEnv":false,"env":{"FOO":"bar","PATH":"/opt/bin"}}`))
	require.NoError(t, err)
	env := c.environ("/r", "/r/artifacts", "/r/codex-home")
	assert.Equal(t, []string{"CODEX_HOME=/r/codex-home", "FOO=bar", "HOME=/r/codex-home", "LUX_RUN_DIR=/r",
		"LUX_WORKSPACE=/r/artifacts", "NO_COLOR=1", "PATH=/opt/bin"}, env)

	c, err = Parse(nil)
	require.NoError(t, err)
	env = c.environ("/r", "/r/artifacts", "/r/codex-home")
	assert.Contains(t, env, "LUX_TEST_HOST_VAR=host")
	assert.Contains(t, env, "CODEX_HOME=/r/codex-home")
}
