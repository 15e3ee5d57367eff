package subprocess_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/orchestrator"
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
