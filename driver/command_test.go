package driver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/record"
)

func writeScript(t *testing.T, path, body string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755))
}

func TestIdentifyCommandNeverRunsIt(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	tool := filepath.Join(dir, "agent.sh")
	writeScript(t, tool, "touch '"+marker+"'\necho 'agent 1.2.3'\n")

	info := driver.IdentifyCommand(tool)
	assert.Equal(t, tool, info.Path)
	assert.Empty(t, info.Version, "a lux-jsonl agent is never asked its version")
	sum, err := driver.HashFile(tool)
	require.NoError(t, err)
	assert.Equal(t, sum, info.SHA256)
	assert.NoFileExists(t, marker, "IdentifyCommand ran the command")

	// Editing the script changes its identity, in the same process.
	writeScript(t, tool, "echo 'agent 1.2.4'\n")
	edited := driver.IdentifyCommand(tool)
	assert.NotEqual(t, info.SHA256, edited.SHA256)

	t.Setenv("PATH", dir)
	assert.Equal(t, edited.SHA256, driver.IdentifyCommand("agent.sh").SHA256, "a bare name is found on PATH")
	assert.Equal(t, record.CommandInfo{Name: "lux-no-such-tool"}, driver.IdentifyCommand("lux-no-such-tool"))
	assert.Equal(t, record.CommandInfo{Name: "/nonexistent/tool"}, driver.IdentifyCommand("/nonexistent/tool"))
}

func TestIdentifyCLIVersion(t *testing.T) {
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	tool := filepath.Join(dir, "claude")
	writeScript(t, tool, "echo x >> '"+count+"'\necho\necho '2.1.328 (Claude Code)'\necho 'more'\n")

	ctx := context.Background()
	want := record.CommandInfo{Name: tool, Path: tool, Version: "2.1.328", RawVersion: "2.1.328 (Claude Code)"}
	assert.Equal(t, want, driver.IdentifyCLI(ctx, tool))
	assert.Equal(t, want, driver.IdentifyCLI(ctx, tool))
	runs, err := os.ReadFile(count)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(runs), "x"), "--version is run once per version of the file")

	t.Setenv("PATH", dir)
	got := driver.IdentifyCLI(ctx, "claude")
	assert.Equal(t, "2.1.328", got.Version)
	assert.Equal(t, "claude", got.Name)
}

func TestIdentifyCLIWithoutVersionFallsBackToTheHash(t *testing.T) {
	tool := filepath.Join(t.TempDir(), "codex")
	writeScript(t, tool, "echo nope; exit 1\n")
	info := driver.IdentifyCLI(context.Background(), tool)
	assert.Empty(t, info.Version)
	assert.NotEmpty(t, info.SHA256, "a CLI that gives no version is identified by its content")
}

func TestProbeVersionIsSandboxed(t *testing.T) {
	const secret = "sk-test-secret-0123456789abcdef"
	t.Setenv("ANTHROPIC_API_KEY", secret)
	t.Setenv("LUX_TEST_SECRET", secret)
	harnessDir := t.TempDir()
	t.Chdir(harnessDir)
	home, err := os.UserHomeDir()
	require.NoError(t, err)

	dir := t.TempDir()
	seen := filepath.Join(dir, "seen")
	// A hostile CLI: it records what it was given, writes into its
	// working directory and prints its environment around a version.
	tool := filepath.Join(dir, "cursor-agent")
	writeScript(t, tool, `{ echo "cwd=$(pwd)"; echo "home=$HOME"; env; } > '`+seen+`'
echo planted > planted.txt
echo "1.0.0 key=$ANTHROPIC_API_KEY $(env | tr '\n' ' ')"
`)
	v, raw := driver.ProbeVersion(context.Background(), tool)
	assert.Empty(t, v+raw, "a line carrying more than a version is not kept")

	got, err := os.ReadFile(seen)
	require.NoError(t, err)
	assert.NotContains(t, string(got), secret, "the probe got the harness's environment")
	assert.NotContains(t, string(got), "home="+home+"\n", "the probe got the user's HOME")
	assert.NotContains(t, string(got), "cwd="+harnessDir+"\n", "the probe ran in the harness's directory")
	assert.NoFileExists(t, filepath.Join(harnessDir, "planted.txt"))
	for _, line := range strings.Split(string(got), "\n") {
		if k, _, ok := strings.Cut(line, "="); ok && !strings.Contains(k, " ") && k != "cwd" && k != "home" {
			assert.Contains(t, []string{"PATH", "HOME", "TMPDIR", "LANG", "PWD", "SHLVL", "_"}, k, "unexpected variable in the probe's environment")
		}
	}
}

func TestProbeVersionDiscardsWhatIsNotAVersion(t *testing.T) {
	for name, out := range map[string]string{
		"a ready line":  `{"type":"ready","agentId":"x","agentVersion":"1.0.0"}`,
		"no number":     "hello",
		"a long token":  "1.2.3 sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
		"suffix secret": "1.2.3-sk-test-secret-that-goes-on",
	} {
		t.Run(name, func(t *testing.T) {
			tool := filepath.Join(t.TempDir(), "codex")
			writeScript(t, tool, "cat <<'EOF'\n"+out+"\nEOF\n")
			v, raw := driver.ProbeVersion(context.Background(), tool)
			assert.Empty(t, raw)
			if v != "" {
				assert.Equal(t, "1.2.3", v, "kept more than a release number")
			}
		})
	}
}

func TestProbeVersionStopsAHangingCLI(t *testing.T) {
	tool := filepath.Join(t.TempDir(), "claude")
	writeScript(t, tool, "exec sleep 600\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	v, raw := driver.ProbeVersion(ctx, tool)
	assert.Empty(t, v+raw)
}
