package subprocess_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/internal/repeattest"
	"github.com/luxeval/lux/orchestrator"
)

// Two runs of one case are repetitions of one measurement, though the
// agent reports its pid and working directory when ready.
func TestRepeatedRunsShareOneIdentity(t *testing.T) {
	agent := filepath.Join(t.TempDir(), "agent.sh")
	require.NoError(t, os.WriteFile(agent, []byte(`#!/bin/sh
echo hi > hello.txt
echo '{"type":"ready","agentId":"hello","agentVersion":"1.0.0","detail":{"pid":'$$',"cwd":"'"$PWD"'"}}'
echo '{"type":"done"}'
`), 0o755))
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
	require.NoError(t, assertion.Register(reg))
	c := &lux.Case{
		ID: "hello", Prompt: "Write hello.txt.",
		Driver:     &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{"command": agent}},
		Assertions: []lux.AssertionSpec{assertion.FileContains("hello.txt", "hi")},
	}
	repeattest.Suites(t, context.Background(), reg, orchestrator.Options{}, []*lux.Case{c})
}
