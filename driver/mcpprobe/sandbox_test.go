package mcpprobe_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/mcpprobe"
	"github.com/luxeval/lux/sandbox"
)

// TestProbeServerRunsInTheSandbox: a stdio server is started inside the
// run's sandbox, as an agent is: it writes its workspace, not beside it.
func TestProbeServerRunsInTheSandbox(t *testing.T) {
	if l, refused, _ := sandbox.Available(); l != sandbox.LevelLandlock {
		t.Skipf("no Landlock here: %v", refused)
	}
	base := t.TempDir()
	ws, scratch, outside := filepath.Join(base, "ws"), filepath.Join(base, "scratch"), filepath.Join(base, "outside")
	for _, d := range []string{ws, scratch, outside} {
		require.NoError(t, os.Mkdir(d, 0o755))
	}
	forged := filepath.Join(outside, "forged.txt")
	cfg, err := mcpprobe.Plugin().Parse(stdioConfig(t, serverWrite, map[string]any{
		"probe": steps(call("write", map[string]any{"text": forged}), call("touch", nil)),
	}))
	require.NoError(t, err)
	box := &sandbox.Run{Workspace: ws, Scratch: scratch, Protect: []string{outside, os.TempDir()}}
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	s, err := cfg.Start(sandbox.WithRun(ctx, box), lux.StartInfo{CaseID: "probe", RunDir: scratch, Workspace: ws})
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	var results []string
	for {
		ev, err := s.Next(ctx)
		require.NoError(t, err)
		if ev.Type == lux.EventProgress && ev.Progress.Kind == lux.KindToolResult {
			results = append(results, ev.Progress.ToolResult.Text)
		}
		if ev.Terminal() {
			break
		}
	}
	require.NoError(t, s.Quiesce(ctx))
	require.Len(t, results, 2)
	assert.NotEqual(t, "ok", results[0], "the server wrote outside its workspace")
	assert.NoFileExists(t, forged)
	assert.Equal(t, "ok", results[1], "the server writes its workspace")
	assert.FileExists(t, filepath.Join(ws, "touched.txt"))
	in := box.Info()
	require.NotNil(t, in, "the server was not started through the sandbox")
	assert.Equal(t, sandbox.LevelLandlock, in.Level)
}
