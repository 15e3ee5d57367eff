package subprocess_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// writeAgent writes an executable script named name in a directory of its
// own and returns the directory and the script's SHA-256.
func writeAgent(t *testing.T, name, script string) (dir, sum string) {
	t.Helper()
	dir = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755))
	h := sha256.Sum256([]byte(script))
	return dir, hex.EncodeToString(h[:])
}

// A bare command name is found where the agent is started from: on the
// config's env.PATH before the harness's PATH. The run records that
// executable — the one that ran — not the one of the same name on the
// harness's PATH.
func TestRecordedCommandIsTheOneStartedFromEnvPath(t *testing.T) {
	const name = "lux-test-agent-on-path"
	dirA, _ := writeAgent(t, name, "#!/bin/sh\nexit 3\n")
	dirB, sumB := writeAgent(t, name, "#!/bin/sh\necho '{\"type\":\"ready\",\"agentId\":\"b\"}'\necho '{\"type\":\"done\"}'\n")
	t.Setenv("PATH", dirA+string(os.PathListSeparator)+os.Getenv("PATH"))

	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
	require.NoError(t, assertion.Register(reg))
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: filepath.Join(t.TempDir(), "runs")})
	res, err := o.Run(context.Background(), &lux.Case{
		ID: "path", Prompt: "p",
		Driver: &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{
			"command": name, "env": map[string]string{"PATH": dirB + ":/usr/bin:/bin"},
		}},
		Assertions: []lux.AssertionSpec{assertion.RunSucceeded()},
	})
	require.NoError(t, err)
	require.Equal(t, record.VerdictPass, res.Verdict(), "B ran: %s", res.Metadata.Reason)
	cmds := res.Metadata.Provenance.Runtime.Commands
	require.Len(t, cmds, 1)
	assert.Equal(t, filepath.Join(dirB, name), cmds[0].Path)
	assert.Equal(t, sumB, cmds[0].SHA256)
}
