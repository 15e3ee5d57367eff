package subprocess_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/internal/digest"
	"github.com/luxeval/lux/orchestrator"
)

func TestParseDefaults(t *testing.T) {
	c, err := subprocess.Parse(json.RawMessage(`{"command":"./agent"}`))
	require.NoError(t, err)
	no := false
	want := &subprocess.Config{
		ProcessConfig:    driver.ProcessConfig{Command: "./agent", IdleTimeout: lux.Duration(2 * time.Minute), InheritEnv: &no},
		MaxInterrupts:    20,
		MaxLineBytes:     10_000_000,
		MaxArtifactFiles: 500,
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	b, err := json.Marshal(c)
	require.NoError(t, err)
	assert.JSONEq(t, `{"command":"./agent","idleTimeout":"2m0s","inheritEnv":false,"maxInterrupts":20,"maxLineBytes":10000000,"maxArtifactFiles":500}`, string(b))
}

func TestParseFields(t *testing.T) {
	c, err := subprocess.Parse(json.RawMessage(`{"command":"agent","args":["-v"],"cwd":"sub","env":{"A":"1"},
		"inheritEnv":true,"idleTimeout":1500,"maxInterrupts":3,"maxLineBytes":100,"maxArtifactFiles":250000,"promptOnStdin":true}`))
	require.NoError(t, err)
	yes := true
	want := &subprocess.Config{
		ProcessConfig: driver.ProcessConfig{Command: "agent", Env: map[string]string{"A": "1"}, InheritEnv: &yes,
			IdleTimeout: lux.Duration(1500 * time.Millisecond)},
		Args: []string{"-v"}, Cwd: "sub", MaxInterrupts: 3, MaxLineBytes: 100, MaxArtifactFiles: 250000,
		PromptOnStdin: true,
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string // every problem, in order
	}{
		{
			name: "empty",
			raw:  `{}`,
			want: []string{`command: required (set it to the agent's executable, e.g. "./agent" or "python3")`},
		},
		{
			name: "unknown fields",
			raw:  `{"command":"a","idleTimeoutMs":5,"Args":[]}`,
			want: []string{
				`Args: unknown field (did you mean "args"?)`,
				`idleTimeoutMs: unknown field (did you mean "idleTimeout"?)`,
			},
		},
		{
			name: "wrong types",
			raw:  `{"command":3,"args":"x"}`,
			want: []string{"args: must be a list, got string", "command: must be a string, got number"},
		},
		{
			name: "bad duration",
			raw:  `{"command":"a","idleTimeout":"soon"}`,
			want: []string{`idleTimeout: must be a duration such as "90s" or a number of milliseconds, got "soon"`},
		},
		{
			name: "every limit out of range",
			raw:  `{"command":"a","idleTimeout":"-1s","maxInterrupts":0,"maxLineBytes":-1,"maxArtifactFiles":250001}`,
			want: []string{
				`idleTimeout: must not be negative, got -1s (leave it out for 2m, or give a duration such as "90s")`,
				"maxInterrupts: must be at least 1, got 0 (omit it for the default 20)",
				"maxLineBytes: must be at least 1, got -1 (omit it for the default 10000000)",
				"maxArtifactFiles: must be between 1 and 250000, got 250001 (omit it for the default 500)",
			},
		},
		{
			name: "reserved and invalid env names",
			raw:  `{"command":"a","env":{"LUX_PROMPT":"x","A=B":"1","OK":"1","NUL":"a\u0000b"}}`,
			want: []string{
				`env.A=B: not a valid variable name (use letters, digits and '_', not starting with a digit)`,
				"env.LUX_PROMPT: set by the driver (remove it: the driver sets LUX_PROMPT for every run)",
				"env.NUL: value contains a NUL byte (remove it)",
			},
		},
		{
			name: "blank command",
			raw:  `{"command":"  "}`,
			want: []string{`command: required (set it to the agent's executable, e.g. "./agent" or "python3")`},
		},
		{
			name: "not an object",
			raw:  `["a"]`,
			want: []string{"must be a JSON object, got a list"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := subprocess.Plugin().Parse(json.RawMessage(tt.raw))
			require.Error(t, err)
			assert.True(t, errors.Is(err, lux.ErrInvalidConfig), "not ErrInvalidConfig: %v", err)
			assert.Regexp(t, `^subprocess: lux: invalid config`, err.Error())
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
	dc, err := subprocess.Plugin().Parse(json.RawMessage(`{"command":"my-agent"}`))
	require.NoError(t, err)
	assert.Equal(t, lux.Runtime{
		Commands: []string{"my-agent"},
		Capabilities: []lux.Capability{lux.CanAsk, lux.CanApprove, lux.CanCustom, lux.ReportsUsage, lux.ReportsCost,
			lux.ReportsTools},
	}, dc.Runtime())
	require.NoError(t, orchestrator.CheckCapabilities("subprocess", dc.Runtime(), []lux.Capability{lux.CanAsk, lux.ReportsCost}))

	stdinPrompt, err := subprocess.Plugin().Parse(json.RawMessage(`{"command":"my-agent","promptOnStdin":true}`))
	require.NoError(t, err)
	assert.Equal(t, []lux.Capability{lux.ReportsUsage, lux.ReportsCost, lux.ReportsTools}, stdinPrompt.Runtime().Capabilities,
		"an agent whose stdin is closed cannot be answered")
}

func TestExperiment(t *testing.T) {
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
	exp := subprocess.Plugin().Experiment
	require.NotNil(t, exp)
	assert.Equal(t, "1", exp.Version)

	// A script whose --version would answer: the identity never asks it,
	// and the marker file shows it was not run.
	dir := t.TempDir()
	script := filepath.Join(dir, "agent")
	marker := filepath.Join(dir, "ran")
	body := "#!/bin/sh\ntouch '" + marker + "'\nif [ \"$1\" = --version ]; then echo 'agent 2.0'; exit 0; fi\necho '{\"type\":\"ready\",\"agentId\":\"s\"}'\n"
	require.NoError(t, os.WriteFile(script, []byte(body), 0o755))

	dc, err := subprocess.Plugin().Parse(json.RawMessage(`{"command":"` + script + `","inheritEnv":true,"env":{"A":"1"}}`))
	require.NoError(t, err)
	prepared, err := exp.Prepare(dc)
	require.NoError(t, err)
	pc := prepared.(*subprocess.Config)
	assert.False(t, *pc.InheritEnv, "prepare must not inherit the host environment")
	assert.Equal(t, map[string]string{"A": "1"}, pc.Env)
	assert.True(t, *dc.(*subprocess.Config).InheritEnv, "prepare must not change its input")

	id, err := exp.Identity(context.Background(), prepared, t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, subprocess.Identity{
		Command: script,
		Path:    script,
		SHA256:  digest.Bytes([]byte(body)),
	}, id)
	assert.NoFileExists(t, marker, "the identity ran the agent")
	_, err = digest.Value(id)
	require.NoError(t, err, "identity must be JSON-encodable")

	missing, err := subprocess.Plugin().Parse(json.RawMessage(`{"command":"lux-no-such-agent"}`))
	require.NoError(t, err)
	_, err = exp.Identity(context.Background(), missing, t.TempDir())
	require.ErrorContains(t, err, "subprocess: identity: command: lux-no-such-agent not found on PATH")
}
