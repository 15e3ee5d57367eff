package driver_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/driver/codex"
	"github.com/luxeval/lux/driver/cursor"
	"github.com/luxeval/lux/driver/mcpprobe"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/internal/digest"
)

// Every driver reports an unknown field and an invalid value at once.
func TestDriversReportEveryConfigProblem(t *testing.T) {
	raw := json.RawMessage(`{"bogus":1,"idleTimeout":"-1s"}`)
	for _, p := range []*lux.DriverPlugin{claudecode.Plugin(), codex.Plugin(), cursor.Plugin(), subprocess.Plugin(), mcpprobe.Plugin()} {
		t.Run(p.Name, func(t *testing.T) {
			_, err := p.Parse(raw)
			require.True(t, errors.Is(err, lux.ErrInvalidConfig), "%v", err)
			var paths []string
			for _, e := range lux.ProblemsOf(err) {
				var fe *lux.FieldError
				require.True(t, errors.As(e, &fe), "%v is not a FieldError", e)
				paths = append(paths, fe.Path)
			}
			assert.Contains(t, paths, "bogus")
			assert.Contains(t, paths, "idleTimeout")
		})
	}
}

// A parsed config is what a run records and hashes into its provenance
// (driverConfigHash, part of a run's identity): the defaults filled in,
// the same JSON from one version to the next.
func TestParsedConfigJSON(t *testing.T) {
	tests := []struct {
		plugin *lux.DriverPlugin
		raw    string
		want   string
	}{
		{claudecode.Plugin(), `{}`,
			`{"command":"claude","idleTimeout":"10m0s","inheritEnv":true,"maxInterrupts":20}`},
		{claudecode.Plugin(), `{"command":"/bin/claude","env":{"A":"1"},"inheritEnv":false,"idleTimeout":"90s"}`,
			`{"command":"/bin/claude","env":{"A":"1"},"idleTimeout":"1m30s","inheritEnv":false,"maxInterrupts":20}`},
		{codex.Plugin(), `{}`,
			`{"approvalPolicy":"never","command":"codex","idleTimeout":"10m0s","inheritEnv":true,"maxInterrupts":20,"mode":"exec","model":"gpt-5.5","sandbox":"workspace-write"}`},
		{codex.Plugin(), `{"command":"/bin/codex","env":{"A":"1"},"inheritEnv":false,"idleTimeout":"90s","mode":"app-server"}`,
			`{"approvalPolicy":"on-request","command":"/bin/codex","env":{"A":"1"},"idleTimeout":"1m30s","inheritEnv":false,"maxInterrupts":20,"mode":"app-server","model":"gpt-5.5","sandbox":"workspace-write"}`},
		{cursor.Plugin(), `{}`,
			`{"approval":"force","command":"cursor-agent","idleTimeout":"10m0s","inheritEnv":true,"killGrace":"5s","maxArtifactFiles":500,"maxLineBytes":33554432,"model":"auto","resultGrace":"3s"}`},
		{cursor.Plugin(), `{"command":"/bin/agent","env":{"A":"1"},"inheritEnv":false,"idleTimeout":"90s"}`,
			`{"approval":"force","command":"/bin/agent","env":{"A":"1"},"idleTimeout":"1m30s","inheritEnv":false,"killGrace":"5s","maxArtifactFiles":500,"maxLineBytes":33554432,"model":"auto","resultGrace":"3s"}`},
		{subprocess.Plugin(), `{"command":"./agent"}`,
			`{"command":"./agent","idleTimeout":"2m0s","inheritEnv":false,"maxArtifactFiles":500,"maxInterrupts":20,"maxLineBytes":10000000}`},
		{subprocess.Plugin(), `{"command":"./agent","env":{"A":"1"},"inheritEnv":true,"idleTimeout":"90s"}`,
			`{"command":"./agent","env":{"A":"1"},"idleTimeout":"1m30s","inheritEnv":true,"maxArtifactFiles":500,"maxInterrupts":20,"maxLineBytes":10000000}`},
		{mcpprobe.Plugin(), `{"command":"./server"}`,
			`{"command":"./server","maxListPages":100,"maxMessageBytes":10000000,"probe":[{"op":"list-tools"}],"startupTimeout":"30s","stepTimeout":"1m0s"}`},
	}
	for _, tt := range tests {
		t.Run(tt.plugin.Name+" "+tt.raw, func(t *testing.T) {
			dc, err := tt.plugin.Parse(json.RawMessage(tt.raw))
			require.NoError(t, err)
			got, err := digest.CanonicalJSON(dc)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

// Each driver's experiment support refuses a config of another driver,
// saying which it got.
func TestExperimentRefusesAnotherDriversConfig(t *testing.T) {
	foreign, err := subprocess.Parse(json.RawMessage(`{"command":"./agent"}`))
	require.NoError(t, err)
	for _, p := range []*lux.DriverPlugin{claudecode.Plugin(), codex.Plugin(), cursor.Plugin(), mcpprobe.Plugin()} {
		t.Run(p.Name, func(t *testing.T) {
			require.NotNil(t, p.Experiment)
			prepared, err := p.Experiment.Prepare(foreign)
			assert.Nil(t, prepared)
			assert.ErrorContains(t, err, "prepare: config is *subprocess.Config, not *")
			id, err := p.Experiment.Identity(t.Context(), foreign, "")
			assert.Nil(t, id)
			assert.ErrorContains(t, err, "identity: config is *subprocess.Config, not *")
		})
	}
}
