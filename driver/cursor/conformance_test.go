package cursor

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/luxtest"
)

// The driver keeps the contract every driver keeps, checked by the suite
// plugin authors run, with the fake cursor-agent replaying recorded
// streams.
func TestConformance(t *testing.T) {
	config := func(fake map[string]string) json.RawMessage {
		script, err := filepath.Abs(filepath.Join("testdata", fake["FAKE_CURSOR_SCRIPT"]))
		require.NoError(t, err)
		fake["FAKE_CURSOR_SCRIPT"] = script
		raw, err := json.Marshal(map[string]any{
			"command": fakeCLI, "killGrace": "100ms", "resultGrace": "2m", "idleTimeout": "30s",
			"inheritEnv": false, "env": fake,
		})
		require.NoError(t, err)
		return raw
	}
	luxtest.TestDriver(t, Plugin(),
		luxtest.DriverScenario{
			Name:          "writes a file",
			Config:        config(map[string]string{"FAKE_CURSOR_SCRIPT": "happy.jsonl", "FAKE_CURSOR_WRITE": "hello.txt=hi"}),
			Prompt:        "Create hello.txt",
			WantExit:      lux.ExitDone,
			WantArtifacts: []string{"hello.txt"},
		},
		luxtest.DriverScenario{
			Name:     "exits without a result",
			Config:   config(map[string]string{"FAKE_CURSOR_SCRIPT": "no-result.jsonl", "FAKE_CURSOR_EXIT": "1"}),
			Prompt:   "Create hello.txt",
			WantExit: lux.ExitError,
		},
	)
}
