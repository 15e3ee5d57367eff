package subprocess_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// An agent that runs into one of the sandbox's limits ends the run with a
// reason naming the limit.
func TestSandboxLimitNamesItself(t *testing.T) {
	tests := []struct {
		name   string
		limits sandbox.Limits
		script string
		want   string
	}{
		{"file size", sandbox.Limits{FileBytes: 1 << 20},
			`exec head -c 4000000 /dev/zero > big`,
			"the agent exceeded the sandbox's file size limit (1048576 bytes, RLIMIT_FSIZE) (code=-1, signal=SIGXFSZ)"},
		{"processes", sandbox.Limits{Processes: 16},
			`i=0; while [ $i -lt 64 ]; do sleep 5 & i=$((i+1)); done; exit 1`,
			"the agent reached the sandbox's process limit (16, pids cgroup)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := lux.NewRegistry()
			require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
			o := orchestrator.New(reg, orchestrator.Options{RunsRoot: filepath.Join(t.TempDir(), "runs"),
				Sandbox: sandbox.Config{Level: sandbox.LevelLimits, Limits: tt.limits}})
			res, err := o.Run(context.Background(), &lux.Case{ID: "hog", Prompt: "p", Driver: &lux.PluginRef{Name: subprocess.Name,
				Config: map[string]any{"command": "/bin/sh", "args": []string{"-c", `echo '{"type":"ready","agentId":"hog"}'
` + tt.script}}}})
			require.NoError(t, err)
			if tt.name == "processes" && res.Metadata.Provenance.Sandbox.ProcessLimit != "pids-cgroup" {
				t.Skipf("no pids cgroup here: %v", res.Metadata.Provenance.Sandbox.Refused)
			}
			assert.Equal(t, lux.ExitError, res.Metadata.ExitReason)
			assert.Contains(t, res.Metadata.Reason, tt.want)
		})
	}
}

// The prompt file, written while the agent's process is set up, is
// there for the agent's first instruction at every level the machine
// offers; where Landlock confines the agent, its directory is read-only
// to it.
func TestPromptFileAtEveryLevel(t *testing.T) {
	prompt := strings.Repeat("prompt ", 1<<17) // 896 KiB: longer to write
	script := `echo '{"type":"ready","agentId":"a"}'
cp "$LUX_PROMPT_FILE" "$LUX_ARTIFACTS_DIR/prompt.txt"
if echo x > "$(dirname "$LUX_PROMPT_FILE")/forged" 2>/dev/null; then echo x > "$LUX_ARTIFACTS_DIR/forged"; fi
echo '{"type":"done"}'`
	best, _, _ := sandbox.Available()
	for _, level := range sandbox.Levels() {
		if !best.AtLeast(level) {
			continue
		}
		t.Run(string(level), func(t *testing.T) {
			reg := lux.NewRegistry()
			require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
			o := orchestrator.New(reg, orchestrator.Options{RunsRoot: filepath.Join(t.TempDir(), "runs"), Sandbox: sandbox.Config{Level: level}})
			res, err := o.Run(context.Background(), &lux.Case{ID: "prompt", Prompt: prompt, Driver: &lux.PluginRef{Name: subprocess.Name,
				Config: map[string]any{"command": "/bin/sh", "args": []string{"-c", script}}}})
			require.NoError(t, err)
			require.Equal(t, lux.ExitDone, res.Metadata.ExitReason, res.Metadata.Reason)
			got, err := os.ReadFile(filepath.Join(res.Dir, record.ArtifactsDir, "prompt.txt"))
			require.NoError(t, err)
			assert.True(t, string(got) == prompt, "the agent read the whole prompt (%d of %d bytes)", len(got), len(prompt))
			_, err = os.Stat(filepath.Join(res.Dir, record.ArtifactsDir, "forged"))
			assert.Equal(t, level.AtLeast(sandbox.LevelLandlock), os.IsNotExist(err), "the agent wrote beside its prompt file: %v", err)
		})
	}
}
