package orchestrator

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cmdConfig is a driver config that launches the commands it is given;
// the versioned ones are agent CLIs that answer --version.
type cmdConfig struct {
	Commands  []string `json:"commands"`
	Versioned []string `json:"versioned,omitempty"`
}

func (c *cmdConfig) Runtime() lux.Runtime {
	return lux.Runtime{Commands: c.Commands, Versioned: c.Versioned, InstallHint: "go install example.com/agent@latest"}
}
func (c *cmdConfig) Start(context.Context, lux.StartInfo) (lux.Session, error) {
	return nil, os.ErrInvalid
}

func TestPreflight(t *testing.T) {
	bin := t.TempDir()
	withVersion := filepath.Join(bin, "agent-v")
	require.NoError(t, os.WriteFile(withVersion, []byte("#!/bin/sh\necho 'agent 2.1'\n"), 0o755))
	silent := filepath.Join(bin, "agent-quiet")
	require.NoError(t, os.WriteFile(silent, []byte("#!/bin/sh\nexit 3\n"), 0o755))

	reg := testRegistry(t)
	require.NoError(t, reg.RegisterDriver(&lux.DriverPlugin{Name: "cmd", Doc: "declares a command it never starts", Parse: func(raw json.RawMessage) (lux.DriverConfig, error) {
		c := &cmdConfig{}
		return c, lux.DecodeConfig(raw, c)
	}}))
	o := New(reg, Options{RunsRoot: filepath.Join(t.TempDir(), "runs")})
	script := filepath.Join(bin, "agent.sh")
	ran := filepath.Join(bin, "ran")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\ntouch '"+ran+"'\necho 'agent 3.0'\n"), 0o755))
	ref := &lux.PluginRef{Name: "cmd", Config: map[string]any{
		"commands":  []string{withVersion, silent, "no-such-agent-xyz", script},
		"versioned": []string{withVersion, silent, "no-such-agent-xyz"},
	}}
	diags := o.Preflight(context.Background(), []*lux.Case{
		{ID: "a", Prompt: "p", Driver: ref},
		{ID: "a", Prompt: "p", Driver: ref},
		{ID: "bad", Prompt: "", Driver: ref},
	})
	byID := map[string][]Diagnostic{}
	for _, d := range diags {
		byID[d.ID] = append(byID[d.ID], d)
	}
	assert.Equal(t, StatusPass, byID["runs-root"][0].Status)
	require.Len(t, byID["case:a"], 3)
	assert.Equal(t, StatusPass, byID["case:a"][0].Status)
	assert.Equal(t, StatusWarn, byID["case:a"][1].Status)
	assert.Contains(t, byID["case:a"][1].Message, `share the id "a"`)
	assert.Equal(t, StatusFail, byID["case:bad"][0].Status)
	assert.Contains(t, byID["case:bad"][0].Detail, "prompt: required")

	v := byID["command:"+withVersion][0]
	assert.Equal(t, StatusPass, v.Status)
	assert.Contains(t, v.Message, ": 2.1")
	assert.Equal(t, StatusWarn, byID["command:"+silent][0].Status)
	// A command that is not a known agent CLI is never run to ask.
	s := byID["command:"+script][0]
	assert.Equal(t, StatusPass, s.Status)
	assert.Contains(t, s.Message, "sha256 ")
	assert.NoFileExists(t, ran, "preflight ran a lux-jsonl agent")
	missing := byID["command:no-such-agent-xyz"]
	require.Len(t, missing, 1, "each command is checked once")
	assert.Equal(t, StatusFail, missing[0].Status)
	assert.Contains(t, missing[0].Message, "not found on PATH")
	assert.Equal(t, "go install example.com/agent@latest", missing[0].Detail)
	assert.False(t, Healthy(diags))

	healthy := o.Preflight(context.Background(), []*lux.Case{{ID: "ok", Prompt: "p", Driver: &lux.PluginRef{Name: "cmd", Config: map[string]any{"commands": []string{withVersion}, "versioned": []string{withVersion}}}}})
	assert.True(t, Healthy(healthy))

	blocked := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocked, nil, 0o600))
	o = New(reg, Options{RunsRoot: filepath.Join(blocked, "runs")})
	d := o.Preflight(context.Background(), nil)
	assert.Equal(t, StatusFail, d[0].Status)
	assert.Contains(t, d[0].Message, "cannot create the runs root")
}
