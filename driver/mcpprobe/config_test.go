package mcpprobe_test

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/mcpprobe"
	"github.com/luxeval/lux/luxtest"
)

func TestParseDefaults(t *testing.T) {
	c, err := mcpprobe.Parse(json.RawMessage(`{"command":"./server"}`))
	require.NoError(t, err)
	want := &mcpprobe.Config{
		Command:         "./server",
		Probe:           []mcpprobe.Step{{Op: "list-tools"}},
		StartupTimeout:  lux.Duration(30 * time.Second),
		StepTimeout:     lux.Duration(time.Minute),
		MaxListPages:    100,
		MaxMessageBytes: 10_000_000,
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	assert.Equal(t, lux.Runtime{Commands: []string{"./server"}, Capabilities: []lux.Capability{lux.ReportsTools}}, c.Runtime())

	h, err := mcpprobe.Parse(json.RawMessage(`{"url":"http://127.0.0.1:9/mcp"}`))
	require.NoError(t, err)
	assert.Empty(t, h.Runtime().Commands, "a server reached by URL launches nothing")
	assert.False(t, h.Runtime().Has(lux.CanAsk) || h.Runtime().Has(lux.CanApprove), "the probe never asks")
}

func TestParseReportsEveryProblem(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		want      []string
	}{
		{"neither", `{}`, []string{"command: required (or url)"}},
		{"both", `{"command":"x","url":"http://127.0.0.1/mcp"}`, []string{"url: cannot be combined with command"}},
		{"bad url", `{"url":"ftp://host/x"}`, []string{`url: "ftp://host/x" is not an http or https URL`}},
		{"headers for stdio", `{"command":"x","headers":{"A":"b"}}`, []string{"headers: only for a server reached by url"}},
		{"bad header", `{"url":"http://127.0.0.1/","headers":{"A B":"x","Ok":"a\nb"}}`, []string{"headers.A B: not a valid header name", "headers.Ok: value contains a line break"}},
		{"steps", `{"command":"x","probe":[{"op":"call"},{"op":"ping"},{"op":"list-tools","tool":"a"}]}`,
			[]string{"probe[0].tool: required", `probe[1].op: must be "list-tools" or "call", got "ping"`, "probe[2]: list-tools takes no tool or args"}},
		{"no steps", `{"command":"x","probe":[]}`, []string{"probe: has no steps"}},
		{"limits", `{"command":"x","startupTimeout":"0s","stepTimeout":-5,"maxListPages":0,"maxMessageBytes":0}`,
			[]string{"startupTimeout: must be positive", "stepTimeout: must be positive", "maxListPages: must be at least 1", "maxMessageBytes: must be at least 1"}},
		{"env", `{"command":"x","env":{"A=B":"1"},"inheritEnv":[""]}`, []string{"env.A=B: not a valid variable name", `inheritEnv[0]: "" is not a valid variable name`}},
		{"unknown and bad", `{"command":"x","comand":"y","maxListPages":0}`, []string{"comand", "maxListPages: must be at least 1"}},
		{"wrong type", `{"command":"x","args":"--fast"}`, []string{"args"}},
		{"inheritEnv of a wrong type", `{"command":"x","inheritEnv":"PATH"}`, []string{"inheritEnv", "true (the whole environment), false (none) or a list of variable names"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mcpprobe.Parse(json.RawMessage(tc.raw))
			require.Error(t, err)
			assert.True(t, errors.Is(err, lux.ErrInvalidConfig), "wraps ErrInvalidConfig: %v", err)
			assert.Contains(t, err.Error(), "mcp-probe:")
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// inheritEnv has the shape it has everywhere in lux: true passes the whole
// host environment on, false (the default here) none of it, and a list
// the variables it names. Each form encodes as it was written.
func TestInheritEnvForms(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want mcpprobe.InheritEnv
		enc  string // the inheritEnv member of the encoded config; empty for none
	}{
		{`{"command":"x"}`, mcpprobe.InheritEnv{}, ""},
		{`{"command":"x","inheritEnv":false}`, mcpprobe.InheritEnv{}, ""},
		{`{"command":"x","inheritEnv":true}`, mcpprobe.InheritEnv{All: true}, `"inheritEnv":true`},
		{`{"command":"x","inheritEnv":["HOME","PATH"]}`, mcpprobe.InheritEnv{Names: []string{"HOME", "PATH"}}, `"inheritEnv":["HOME","PATH"]`},
	} {
		c, err := mcpprobe.Parse(json.RawMessage(tc.raw))
		require.NoError(t, err, tc.raw)
		if diff := cmp.Diff(tc.want, c.InheritEnv); diff != "" {
			t.Errorf("%s: inheritEnv (-want +got):\n%s", tc.raw, diff)
		}
		b, err := json.Marshal(c)
		require.NoError(t, err)
		if tc.enc == "" {
			assert.NotContains(t, string(b), "inheritEnv", tc.raw)
		} else {
			assert.Contains(t, string(b), tc.enc, tc.raw)
		}
		again, err := mcpprobe.Parse(b)
		require.NoError(t, err, "%s encodes as %s", tc.raw, b)
		assert.Equal(t, c.InheritEnv, again.InheritEnv, "encode then parse gives %s back", tc.raw)
	}
}

func TestConfigEncodesTheSameEveryTime(t *testing.T) {
	raw := `{"command":"x","env":{"B":"2","A":"1"},"probe":[{"op":"call","tool":"add","args":{"b":2,"a":1}}]}`
	a, err := mcpprobe.Parse(json.RawMessage(raw))
	require.NoError(t, err)
	first, err := json.Marshal(a)
	require.NoError(t, err)
	for range 5 {
		b, err := mcpprobe.Parse(json.RawMessage(raw))
		require.NoError(t, err)
		again, err := json.Marshal(b)
		require.NoError(t, err)
		assert.Equal(t, string(first), string(again))
	}
}

func TestExperimentIdentityHashesTheServer(t *testing.T) {
	dir := t.TempDir()
	script := dir + "/server.js"
	require.NoError(t, os.WriteFile(script, []byte("v1"), 0o644))
	exe, err := os.Executable()
	require.NoError(t, err)
	raw, _ := json.Marshal(map[string]any{"command": exe, "args": []string{"--flag", script}})
	plugin := mcpprobe.Plugin()
	cfg, err := plugin.Parse(raw)
	require.NoError(t, err)
	idOf := func() mcpprobe.Identity {
		id, err := plugin.Experiment.Identity(t.Context(), cfg, dir)
		require.NoError(t, err)
		return id.(mcpprobe.Identity)
	}
	first := idOf()
	assert.Len(t, first.SHA256, 64)
	assert.Contains(t, first.Files, script)
	require.NoError(t, os.WriteFile(script, []byte("v2"), 0o644))
	assert.NotEqual(t, first.Files[script], idOf().Files[script], "a changed server script changes the identity")

	prepared, err := plugin.Experiment.Prepare(cfg)
	require.NoError(t, err)
	assert.Equal(t, cfg, prepared)
}

func TestConformance(t *testing.T) {
	luxtest.TestDriver(t, mcpprobe.Plugin(),
		luxtest.DriverScenario{
			Name:     "tools over stdio",
			Config:   stdioConfig(t, serverTools, map[string]any{"probe": steps(listTools, call("add", map[string]any{"a": 1, "b": 2}), call("fail", nil), call("touch", nil))}),
			Prompt:   "probe the server",
			WantExit: lux.ExitDone,
		},
		luxtest.DriverScenario{
			Name:     "crash",
			Config:   stdioConfig(t, serverCrash, map[string]any{"probe": steps(call("crash", nil))}),
			Prompt:   "probe the server",
			WantExit: lux.ExitError,
		},
	)
}

// A server reached by URL keeps the whole contract: its runtime declares
// no command, because the probe launches none.
func TestConformanceOverHTTP(t *testing.T) {
	luxtest.TestDriver(t, mcpprobe.Plugin(), luxtest.DriverScenario{
		Name:     "tools over http",
		Config:   httpConfig(t, serverTools, map[string]any{"probe": steps(listTools, call("echo", map[string]any{"text": "hi"}))}),
		Prompt:   "probe the server",
		WantExit: lux.ExitDone,
	})
}

// A config written in Go with only the server set gets every default.
func TestGoConfigGetsTheDefaults(t *testing.T) {
	raw, err := json.Marshal(mcpprobe.Config{Command: "./server"})
	require.NoError(t, err)
	c, err := mcpprobe.Parse(raw)
	require.NoError(t, err)
	assert.Equal(t, lux.Duration(mcpprobe.DefaultStartupTimeout), c.StartupTimeout)
	assert.Equal(t, []mcpprobe.Step{{Op: mcpprobe.OpListTools}}, c.Probe)
	assert.Equal(t, mcpprobe.DefaultMaxListPages, c.MaxListPages)
}
