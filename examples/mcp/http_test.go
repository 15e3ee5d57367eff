package main

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/builtin"
	"github.com/luxeval/lux/driver/mcpprobe"
	"github.com/luxeval/lux/orchestrator"
)

// TestProbeARunningServer starts notesserver on streamable HTTP on
// 127.0.0.1 and probes it by URL.
func TestProbeARunningServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example server")
	}
	root := t.TempDir()
	server, err := buildServer(t.Context(), filepath.Join(root, ".bin"))
	require.NoError(t, err)
	cmd := exec.CommandContext(t.Context(), server, "-http", "127.0.0.1:0")
	cmd.Dir = t.TempDir()
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stderr).ReadString('\n') // "notesserver: serving http://127.0.0.1:N/mcp"
	require.NoError(t, err)
	_, url, ok := strings.Cut(strings.TrimSpace(line), "serving ")
	require.True(t, ok, line)

	c := &lux.Case{
		ID:     "running-server",
		Prompt: "Probe the running server.",
		Driver: &lux.PluginRef{Name: mcpprobe.Name, Config: mcpprobe.Config{URL: url, Probe: []mcpprobe.Step{
			{Op: mcpprobe.OpListTools}, call("count_words", map[string]any{"text": "one two"}),
		}}},
		Assertions: []lux.AssertionSpec{
			{Type: "server-info-equals", Config: map[string]any{"server": "notes"}},
			assertion.ToolResultJSONPointerEquals("count_words", "/words", 2),
		},
	}
	res, err := orchestrator.New(builtin.Registry(), orchestrator.Options{RunsRoot: root}).RunSuite(t.Context(), []*lux.Case{c})
	require.NoError(t, err)
	it := res.Manifest.Items[0]
	require.NotNil(t, it.Passed, it.Error)
	assert.True(t, *it.Passed, it.Error)
}
