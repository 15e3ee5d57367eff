package cursor_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/cursor"
	"github.com/luxeval/lux/internal/proc"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/sandbox"
)

// newOrchestrator's agents may write to the directories rw, beyond their
// workspaces.
func newOrchestrator(t *testing.T, rw ...string) (*orchestrator.Orchestrator, string) {
	t.Helper()
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(cursor.Plugin()))
	root := t.TempDir()
	testdata, err := filepath.Abs("testdata")
	require.NoError(t, err)
	// The fake CLI replays a script from testdata: the sandbox lets it read it.
	return orchestrator.New(reg, orchestrator.Options{RunsRoot: root, Sandbox: sandbox.Config{ReadOnly: []string{testdata}, ReadWrite: rw}}), root
}

func fakeDriver(t *testing.T, script string, extra map[string]any) *lux.PluginRef {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", script))
	require.NoError(t, err)
	cfg := map[string]any{
		"command":     cursor.FakeCLI(),
		"resultGrace": "200ms",
		"killGrace":   "100ms",
		"env":         map[string]string{"FAKE_CURSOR_SCRIPT": abs, "FAKE_CURSOR_WRITE": "hello.txt=hi\n"},
	}
	for k, v := range extra {
		cfg[k] = v
	}
	return &lux.PluginRef{Name: cursor.Name, Config: cfg}
}

func TestCaseRequiringAskIsRefusedBeforeItRuns(t *testing.T) {
	o, root := newOrchestrator(t)
	tests := []struct {
		name     string
		requires []lux.Capability
		config   map[string]any
		refused  bool
	}{
		{"ask", []lux.Capability{lux.CanAsk}, nil, true},
		{"approve", []lux.Capability{lux.CanApprove}, nil, true},
		{"usage when not declared", []lux.Capability{lux.ReportsUsage}, nil, true},
		{"usage when declared", []lux.Capability{lux.ReportsUsage}, map[string]any{"reportsUsage": true}, false},
		{"tool events", []lux.Capability{lux.ReportsTools}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &lux.Case{ID: "needs-" + string(tt.requires[0]), Prompt: "Ask me first", Driver: fakeDriver(t, "happy.jsonl", tt.config), Requires: tt.requires}
			err := o.Validate(c)
			if !tt.refused {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, orchestrator.ErrMissingCapability), "got %v", err)
			assert.Contains(t, err.Error(), `driver "cursor" does not declare `+string(tt.requires[0]))

			_, err = o.Run(context.Background(), c)
			require.ErrorIs(t, err, orchestrator.ErrMissingCapability)
			entries, _ := os.ReadDir(root)
			assert.Empty(t, entries, "nothing ran, nothing was recorded")
		})
	}
}

func TestRunRecordsUsageOrItsAbsence(t *testing.T) {
	tests := []struct {
		script string
		want   *lux.TokenUsage
	}{
		{"happy.jsonl", &lux.TokenUsage{Input: 32473, Output: 305, CacheRead: 96675}},
		{"no-usage.jsonl", nil},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			o, _ := newOrchestrator(t)
			res, err := o.Run(context.Background(), &lux.Case{ID: "hello", Prompt: "Create hello.txt", Driver: fakeDriver(t, tt.script, nil)})
			require.NoError(t, err)
			m := res.Metadata
			require.Equal(t, lux.ExitDone, m.ExitReason, m.Reason)
			assert.Equal(t, tt.want, m.Usage.Agent, "usage is recorded when reported, unavailable (nil) when not")
			assert.Equal(t, tt.want != nil, m.Usage.AgentAvailable())

			assert.Equal(t, "2026.09.10-fake001", m.Driver.AgentVersion)
			require.Len(t, m.Provenance.Runtime.Commands, 1)
			assert.Equal(t, "2026.09.10-fake001", m.Provenance.Runtime.Commands[0].Version, "the CLI's version is in provenance")
			assert.Equal(t, []lux.Capability{lux.ReportsTools}, m.Provenance.Runtime.Capabilities)
			assert.Equal(t, []lux.Artifact{{Path: "hello.txt", Size: 3, SHA256: "98ea6e4f216f2fb4b69fff9b3a44842c38686ca685f3f55dc48c5d3fb1107be4"}}, res.Artifacts)
		})
	}
}

func TestRunLeavesNoProcessBehind(t *testing.T) {
	// The CLI hangs after its result and leaves a detached worker: the run
	// still ends done, and nothing of it survives the run.
	pidFile := filepath.Join(t.TempDir(), "worker.pid")
	o, _ := newOrchestrator(t, filepath.Dir(pidFile))
	drv := fakeDriver(t, "happy.jsonl", nil)
	env := drv.Config.(map[string]any)["env"].(map[string]string)
	env["FAKE_CURSOR_AFTER"] = "hang"
	env["FAKE_CURSOR_ORPHAN"] = pidFile

	res, err := o.Run(context.Background(), &lux.Case{ID: "hang", Prompt: "Create hello.txt", Driver: drv})
	require.NoError(t, err)
	require.Equal(t, lux.ExitDone, res.Metadata.ExitReason, res.Metadata.Reason)

	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	worker, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	assert.NoError(t, proc.WaitEnded(ctx, worker), "the CLI's detached worker outlived the run")
}
