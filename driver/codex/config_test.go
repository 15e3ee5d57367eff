package codex

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/internal/golden"
)

func TestParseConfigDefaults(t *testing.T) {
	c, err := Parse(nil)
	require.NoError(t, err)
	yes := true
	want := &Config{
		ProcessConfig: driver.ProcessConfig{Command: "codex", InheritEnv: &yes, IdleTimeout: lux.Duration(10 * time.Minute)},
		Mode:          ModeExec, Model: "gpt-5.5", Sandbox: "workspace-write", ApprovalPolicy: "never", MaxInterrupts: 20,
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	app, err := Parse(json.RawMessage(`{"mode":"app-server","provider":{"baseURL":"http://127.0.0.1:1/v1"}}`))
	require.NoError(t, err)
	assert.Equal(t, "on-request", app.ApprovalPolicy)
	assert.Equal(t, "lux", app.Provider.ID)
}

func TestParseConfigProblems(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string // every problem, as FieldError strings
	}{
		{
			name: "unknown field",
			raw:  `{"modle":"x"}`,
			want: []string{`modle: unknown field (known fields: approvalPolicy, authFile, command, config, env, extraArgs, idleTimeout, inheritEnv, keepHome, maxInterrupts, mode, model, provider, reasoningEffort, sandbox)`},
		},
		{
			name: "bad values everywhere",
			raw: `{"mode":"tui","sandbox":"none","approvalPolicy":"always","reasoningEffort":"max",
				"provider":{"id":"openai","baseURL":"ftp://x","envKey":"1KEY","requestMaxRetries":-1},
				"config":{"model":"o3","a b":1,"features.x":null,"ok.key":[1,"two",{"k":true}]},
				"env":{"CODEX_HOME":"/tmp/x","bad-name":"v"},"idleTimeout":"-1s","maxInterrupts":-2}`,
			want: []string{
				`env.CODEX_HOME: set by the driver (each run gets its own CODEX_HOME in the run directory; use authFile to bring credentials)`,
				`env.bad-name: not a valid variable name (use letters, digits and '_', not starting with a digit)`,
				`idleTimeout: must not be negative, got -1s (leave it out for 10m, or give a duration such as "90s")`,
				`mode: unknown mode "tui" (use "exec" or "app-server")`,
				`sandbox: unknown value "none" (use one of: read-only, workspace-write, danger-full-access)`,
				`approvalPolicy: unknown value "always" (use one of: untrusted, on-request, never)`,
				`reasoningEffort: unknown value "max" (use one of: none, minimal, low, medium, high, xhigh)`,
				`provider.id: "openai" is a built-in provider of the CLI (choose another id, e.g. "lux")`,
				`provider.baseURL: "ftp://x" is not an http(s) URL (e.g. "http://127.0.0.1:8080/v1")`,
				`provider.envKey: "1KEY" is not an environment variable name (e.g. "OPENAI_API_KEY")`,
				`provider.requestMaxRetries: negative`,
				`config.a b: not a config key (use a dotted path such as "shell_environment_policy.inherit")`,
				`config.features.x: null has no TOML form (use a string, number, boolean, list or object)`,
				`config.model: set by the driver (use the "model" field instead)`,
				`maxInterrupts: negative (-2) (leave it out for 20)`,
			},
		},
		{
			name: "exec cannot ask for approval",
			raw:  `{"approvalPolicy":"untrusted","extraArgs":["--model=o3","--full-auto"]}`,
			want: []string{
				`approvalPolicy: "untrusted" needs someone to approve, and exec mode cannot ask (use mode "app-server" to have approvals answered, or leave approvalPolicy out)`,
				`extraArgs[0]: --model is set by the driver (use the config's own fields (model, sandbox, mode) instead)`,
			},
		},
		{
			name: "provider needs a base URL",
			raw:  `{"provider":{}}`,
			want: []string{`provider.baseURL: required (give the API's base URL, e.g. "https://api.openai.com/v1")`},
		},
		{
			name: "wrong type",
			raw:  `{"model":3}`,
			want: []string{`model: must be a string, got number`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(json.RawMessage(tc.raw))
			require.Error(t, err)
			assert.True(t, errors.Is(err, lux.ErrInvalidConfig))
			var got []string
			for _, e := range lux.ProblemsOf(err) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRuntimeCapabilities(t *testing.T) {
	tests := []struct {
		raw  string
		want []lux.Capability
	}{
		{`{}`, []lux.Capability{lux.ReportsUsage, lux.ReportsTools}},
		{`{"mode":"app-server"}`, []lux.Capability{lux.ReportsUsage, lux.ReportsTools, lux.CanAsk, lux.CanApprove}},
		{`{"mode":"app-server","approvalPolicy":"never"}`, []lux.Capability{lux.ReportsUsage, lux.ReportsTools, lux.CanAsk}},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			c, err := Parse(json.RawMessage(tc.raw))
			require.NoError(t, err)
			rt := c.Runtime()
			assert.Equal(t, tc.want, rt.Capabilities)
			assert.Equal(t, []string{"codex"}, rt.Commands)
			assert.Equal(t, "npm install -g @openai/codex", rt.InstallHint)
			assert.Equal(t, "gpt-5.5", rt.Model)
		})
	}
}

func TestLaunchFiles(t *testing.T) {
	c, err := Parse(json.RawMessage(`{"mode":"app-server","reasoningEffort":"low",
		"provider":{"baseURL":"http://127.0.0.1:9/v1","envKey":"FAKE_KEY","requestMaxRetries":0,"streamMaxRetries":1},
		"config":{"shell_environment_policy.inherit":"all","tools":{"web_search":false},"n":1.5},"extraArgs":["--enable","x"]}`))
	require.NoError(t, err)
	golden.Equal(t, "testdata/config.toml.golden", []byte(c.homeConfig()))
	assert.Equal(t, []string{"app-server", "-c", "n=1.5", "-c", `shell_environment_policy.inherit="all"`,
		"-c", "tools={web_search = false}", "--enable", "x"}, c.args("hi"))

	e, err := Parse(json.RawMessage(`{"extraArgs":["--add-dir","/x"]}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"exec", "--json", "--color", "never", "--skip-git-repo-check", "--ephemeral",
		"--add-dir", "/x", "--", "-v is a prompt"}, e.args("-v is a prompt"))
}

func TestTOMLValue(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{"a \"q\"\n\x7f", `"a \"q\"\n\u007f"`},
		{float64(3), "3"},
		{1e300, "1e+300"},
		{0.25, "0.25"},
		{[]any{true, "x", map[string]any{"b c": 1, "a": []any{}}}, `[true, "x", {a = [], "b c" = 1}]`},
	}
	for _, tc := range tests {
		got, err := tomlValue(tc.in)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}
}
