package mcpprobe_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/mcpprobe"
	"github.com/luxeval/lux/orchestrator"
)

// The orchestrator's whole path, from a case file to the recorded events,
// keeps the numbers of the call arguments as written: with the case's own
// driver config, and merged with a default config of the same driver.
func TestRecordKeepsNumbersAsWritten(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	const args = `{"id": 9007199254740993, "ratio": 1.10}`
	for _, tc := range []struct {
		name string
		def  *lux.PluginRef
	}{
		{"case config", nil},
		{"merged with a default", &lux.PluginRef{Name: mcpprobe.Name, Config: json.RawMessage(`{"stepTimeout": "1m", "maxListPages": 7}`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "case.json")
			require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(`{"id": "numbers", "prompt": "probe",
				"driver": {"name": "mcp-probe", "config": {"command": %q, "env": {"LUX_MCP_TEST_SERVER": "tools"},
					"probe": [{"op": "call", "tool": "args", "args": %s}]}},
				"assertions": [{"type": "run-succeeded"}]}`, exe, args)), 0o644))
			c, err := lux.ReadCase(path, (*lux.Case).Validate)
			require.NoError(t, err)
			reg := lux.NewRegistry()
			require.NoError(t, errors.Join(reg.RegisterDriver(mcpprobe.Plugin()), assertion.Register(reg)))
			o := orchestrator.New(reg, orchestrator.Options{RunsRoot: filepath.Join(dir, "runs"), DefaultDriver: tc.def})
			res, err := o.Run(t.Context(), c)
			require.NoError(t, err)
			require.Equal(t, lux.ExitDone, res.Metadata.ExitReason, res.Metadata.Reason)
			events, err := os.ReadFile(filepath.Join(res.Dir, "events.jsonl"))
			require.NoError(t, err)
			for _, n := range []string{`"id":9007199254740993`, `"ratio":1.10`} {
				assert.Contains(t, string(events), n, "the recorded call, and the server's answer, keep %s", n)
			}
		})
	}
}
