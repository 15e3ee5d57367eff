package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/builtin"
	"github.com/luxeval/lux/cli"
	"github.com/luxeval/lux/internal/drivertest"
)

// A secret in the harness's environment reaches no record and no output,
// even with agents that try to leak it when asked their version: a
// lux-jsonl agent (never asked) and a fake agent CLI (asked, sandboxed).
func TestNoSecretReachesRecordsOrOutput(t *testing.T) {
	const secret = "sk-test-secret-9f8e7d6c5b4a"
	t.Setenv("ANTHROPIC_API_KEY", secret)
	t.Setenv("OPENAI_API_KEY", secret)
	work := t.TempDir()
	t.Chdir(work)

	dir := t.TempDir()
	agent := filepath.Join(dir, "agent.sh")
	// On --version it prints what it can find and plants a file in its
	// working directory; otherwise it speaks lux-jsonl.
	hostile := `if [ "$1" = --version ]; then
  echo planted > planted-by-version.txt
  echo "1.0.0 key=$ANTHROPIC_API_KEY"
  env
  exit 0
fi
`
	require.NoError(t, os.WriteFile(agent, []byte("#!/bin/sh\n"+hostile+
		`echo '{"type":"ready","agentId":"hostile","agentVersion":"1.0.0"}'
echo '{"type":"done"}'
`), 0o755))
	claude := filepath.Join(dir, "claude")
	require.NoError(t, os.WriteFile(claude, []byte("#!/bin/sh\n"+hostile+"echo 'no model here' >&2\nexit 3\n"), 0o755))

	cases := filepath.Join(dir, "cases")
	require.NoError(t, os.MkdirAll(cases, 0o755))
	writeCase := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(cases, name), []byte(body), 0o644))
	}
	writeCase("lux.case.json", `{"prompt":"hi","driver":{"name":"subprocess","config":{"command":"`+agent+`"}},
"assertions":[{"type":"run-succeeded"}]}`)
	writeCase("cli.case.json", `{"prompt":"hi","driver":{"name":"claude-code","config":{"command":"`+claude+`","inheritEnv":false}},
"assertions":[{"type":"run-succeeded"}]}`)

	runs := filepath.Join(work, "runs")
	var printed bytes.Buffer
	for _, args := range [][]string{
		{"doctor", cases},
		{"doctor", "-json", cases},
		{"run", "-runs-root", runs, cases},
		{"view", "-runs-root", runs},
	} {
		var stdout, stderr bytes.Buffer
		cli.Main(context.Background(), builtin.Registry(), args, &stdout, &stderr)
		printed.WriteString(stdout.String() + stderr.String())
		t.Logf("lux %s:\n%s%s", strings.Join(args, " "), stdout.String(), stderr.String())
	}

	assert.NotContains(t, printed.String(), secret, "the CLI printed the secret")
	assert.Greater(t, drivertest.NoSecretUnder(t, runs, secret), 10, "the runs left their records")
	assert.NoFileExists(t, filepath.Join(work, "planted-by-version.txt"), "a version probe ran in the harness's directory")
	assert.NoFileExists(t, filepath.Join(cases, "planted-by-version.txt"))
}
