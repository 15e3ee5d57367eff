package claudecode

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

func TestParseConfigDefaults(t *testing.T) {
	c, err := Parse(json.RawMessage(`{"model": "sonnet"}`))
	require.NoError(t, err)
	yes := true
	want := &Config{
		ProcessConfig: driver.ProcessConfig{Command: "claude", IdleTimeout: lux.Duration(10 * time.Minute), InheritEnv: &yes},
		Model:         "sonnet", MaxInterrupts: 20,
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
}

func TestParseConfigProblems(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string // every problem, in order
	}{
		{
			name: "unknown field",
			raw:  `{"modle": "x"}`,
			want: []string{`modle: unknown field (did you mean "model"?)`},
		},
		{
			name: "wrong types",
			raw:  `{"model": 3, "idleTimeout": "soon"}`,
			want: []string{
				`idleTimeout: must be a duration such as "90s" or a number of milliseconds, got "soon"`,
				"model: must be a string, got number",
			},
		},
		{
			name: "bad values",
			raw: `{"effort": "extreme", "permissionMode": "yolo", "maxTurns": -1, "maxInterrupts": -2,
				"idleTimeout": "-1s", "allowedTools": ["Write", " "], "settings": "{not json"}`,
			want: []string{
				`idleTimeout: must not be negative, got -1s (leave it out for 10m, or give a duration such as "90s")`,
				`effort: unknown effort "extreme" (use one of low, medium, high, xhigh, max)`,
				`permissionMode: unknown permission mode "yolo" (use one of default, acceptEdits, auto, bypassPermissions, dontAsk, manual, plan)`,
				"allowedTools[1]: is blank (remove it)",
				"settings: not valid JSON at line 1, column 2: invalid character 'n' looking for beginning of object key string (give a settings file's path, or a JSON object)",
				"maxTurns: must not be negative, got -1 (leave it out for no limit)",
				"maxInterrupts: must not be negative, got -2 (leave it out for 20)",
			},
		},
		{
			name: "flags the driver or a field sets",
			raw:  `{"extraArgs": ["--output-format=json", "--model", "opus", "--append-system-prompt", "be brief"]}`,
			want: []string{
				"extraArgs[0]: --output-format is managed by the driver (remove it: the driver runs the CLI with stream-json input and output, one session per run)",
				`extraArgs[1]: --model is set by the config (use the "model" field instead)`,
			},
		},
		{
			name: "environment",
			raw: `{"baseUrl": "127.0.0.1:8080", "apiKeyEnv": "MY KEY",
				"env": {"CLAUDE_CONFIG_DIR": "/x", "ANTHROPIC_BASE_URL": "http://a", "ANTHROPIC_API_KEY": "k"}}`,
			want: []string{
				"env.CLAUDE_CONFIG_DIR: set by the driver (each run gets its own config directory: put settings in the settings field and plugins in pluginDirs)",
				`baseUrl: "127.0.0.1:8080" is not an http or https URL (give a URL such as http://127.0.0.1:8080, or leave it out for the Anthropic API)`,
				"env.ANTHROPIC_BASE_URL: is set as well as baseUrl (set one of them)",
				`apiKeyEnv: "MY KEY" is not a variable name (name a variable of this process's environment, such as ANTHROPIC_API_KEY)`,
				"env.ANTHROPIC_API_KEY: is set as well as apiKeyEnv (set one of them)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(json.RawMessage(tt.raw))
			require.Error(t, err)
			assert.ErrorIs(t, err, lux.ErrInvalidConfig)
			var got []string
			for _, e := range lux.ProblemsOf(err) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRuntime(t *testing.T) {
	c, err := Parse(json.RawMessage(`{"model": "claude-sonnet-4-5"}`))
	require.NoError(t, err)
	r := c.Runtime()
	assert.Equal(t, []string{"claude"}, r.Commands)
	assert.Equal(t, "claude-sonnet-4-5", r.Model)
	assert.Equal(t, "npm install -g @anthropic-ai/claude-code", r.InstallHint)
	assert.Empty(t, r.Missing([]lux.Capability{lux.CanAsk, lux.CanApprove, lux.ReportsUsage, lux.ReportsCost, lux.ReportsTools}))
}

func TestArgs(t *testing.T) {
	c := &Config{
		Model: "opus", Effort: "high", PermissionMode: "acceptEdits",
		AllowedTools: []string{"Write", "Bash(git *)"}, DisallowedTools: []string{"WebFetch"},
		Agent: "reviewer", MaxTurns: 12, ExtraArgs: []string{"--append-system-prompt", "be brief"},
	}
	got := c.args(resolvedPaths{pluginDirs: []string{"/p/one", "/p/two"}, addDirs: []string{"/data"}, settings: "/s.json"})
	want := append(append([]string(nil), baseArgs...),
		"--model", "opus", "--effort", "high", "--permission-mode", "acceptEdits",
		"--allowedTools", "Write", "--allowedTools", "Bash(git *)", "--disallowedTools", "WebFetch",
		"--plugin-dir", "/p/one", "--plugin-dir", "/p/two", "--add-dir", "/data", "--settings", "/s.json",
		"--agent", "reviewer", "--max-turns", "12", "--append-system-prompt", "be brief")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
}

func TestEnviron(t *testing.T) {
	d := runDirs{config: "/run/claude-code/config", tmp: "/run/claude-code/tmp", home: "/run/claude-code/home"}
	no := false
	t.Setenv("LUX_TEST_CLAUDE_KEY", "sk-secret")
	t.Setenv("LUX_TEST_HOST_ONLY", "leaked")
	tests := []struct {
		name   string
		cfg    Config
		want   map[string]string // variables that must have these values
		absent []string
	}{
		{
			name: "not inherited",
			cfg: Config{ProcessConfig: driver.ProcessConfig{InheritEnv: &no, Env: map[string]string{"TMPDIR": "/mine", "EXTRA": "1"}},
				PermissionMode: "bypassPermissions", BaseURL: "http://127.0.0.1:9", APIKeyEnv: "LUX_TEST_CLAUDE_KEY"},
			want: map[string]string{
				"PATH": driver.DefaultPath, "HOME": d.home, "CLAUDE_CONFIG_DIR": d.config, "TMPDIR": "/mine",
				"IS_SANDBOX": "1", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "ANTHROPIC_API_KEY": "sk-secret",
				"DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "EXTRA": "1",
			},
			absent: []string{"LUX_TEST_HOST_ONLY"},
		},
		{
			name: "inherited",
			cfg:  Config{PermissionMode: "default"},
			want: map[string]string{"LUX_TEST_HOST_ONLY": "leaked", "CLAUDE_CONFIG_DIR": d.config, "TMPDIR": d.tmp, "HOME": os.Getenv("HOME")},
		},
		{
			name:   "sandbox only for bypassPermissions",
			cfg:    Config{ProcessConfig: driver.ProcessConfig{InheritEnv: &no}, PermissionMode: "acceptEdits"},
			want:   map[string]string{"CLAUDE_CONFIG_DIR": d.config},
			absent: []string{"IS_SANDBOX", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := tt.cfg.environ(d)
			require.NoError(t, err)
			for k, v := range tt.want {
				got, ok := driver.LookupEnv(env, k)
				assert.True(t, ok, "%s is not set", k)
				assert.Equal(t, v, got, k)
			}
			for _, k := range tt.absent {
				_, ok := driver.LookupEnv(env, k)
				assert.False(t, ok, "%s is set", k)
			}
		})
	}
	_, err := (&Config{APIKeyEnv: "LUX_TEST_UNSET_KEY"}).environ(d)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "LUX_TEST_UNSET_KEY is not set")
}

func TestPrepare(t *testing.T) {
	c, err := Parse(json.RawMessage(`{"env": {"A": "1"}}`))
	require.NoError(t, err)
	p, err := Prepare(c)
	require.NoError(t, err)
	pc := p
	assert.False(t, *pc.InheritEnv)
	assert.True(t, *c.InheritEnv, "the original config changed")
	pc.Env["A"] = "2"
	assert.Equal(t, "1", c.Env["A"], "the prepared config shares the original's env")
}

func TestIdentity(t *testing.T) {
	root := t.TempDir()
	exe := filepath.Join(root, "bin", "claude")
	require.NoError(t, os.MkdirAll(filepath.Dir(exe), 0o755))
	require.NoError(t, os.WriteFile(exe, []byte("#!/bin/sh\necho '9.9.9 (Claude Code)'\n"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "plugin", "skills"), 0o755))
	write := func(rel, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644))
	}
	write("settings.json", `{"model": "opus"}`)
	write("plugin/skills/a.md", "one")

	c := &Config{ProcessConfig: driver.ProcessConfig{Command: exe}, Settings: "settings.json", PluginDirs: []string{"plugin"}}
	identity := func() *Identity {
		t.Helper()
		v, err := IdentityOf(context.Background(), c, root)
		require.NoError(t, err)
		return v.(*Identity)
	}
	first := identity()
	assert.Equal(t, "9.9.9", first.CLIVersion)
	assert.Len(t, first.ExecutableSHA256, 64)
	require.NotNil(t, first.Settings)
	require.Len(t, first.Plugins, 1)
	assert.Equal(t, first, identity(), "identity is not stable")

	write("plugin/skills/a.md", "two")
	second := identity()
	assert.NotEqual(t, first.Plugins[0].SHA256, second.Plugins[0].SHA256, "a plugin change did not change the identity")
	assert.Equal(t, first.Settings, second.Settings)

	write("settings.json", `{"model": "haiku"}`)
	assert.NotEqual(t, second.Settings.SHA256, identity().Settings.SHA256, "a settings change did not change the identity")

	_, err := IdentityOf(context.Background(), &Config{ProcessConfig: driver.ProcessConfig{Command: filepath.Join(root, "missing")}}, root)
	require.Error(t, err)
	assert.Contains(t, err.Error(), InstallHint)
}

func TestStartMissingCommand(t *testing.T) {
	c := &Config{ProcessConfig: driver.ProcessConfig{Command: "lux-no-such-claude"}}
	_, err := c.Start(context.Background(), lux.StartInfo{Prompt: "hi", RunDir: t.TempDir(), Workspace: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lux-no-such-claude is not installed")
	assert.Contains(t, err.Error(), InstallHint)
}

func TestStartMissingPaths(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "claude")
	require.NoError(t, os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755))
	c := &Config{ProcessConfig: driver.ProcessConfig{Command: exe}, PluginDirs: []string{"/lux/no/such/plugin"}, Settings: "/lux/no/such/settings.json"}
	_, err := c.Start(context.Background(), lux.StartInfo{Prompt: "hi", RunDir: t.TempDir(), Workspace: t.TempDir()})
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "pluginDirs[0]") && strings.Contains(err.Error(), "settings"), err.Error())
	assert.True(t, errors.Is(err, os.ErrNotExist), err.Error())
}
