package claudecode_test

import (
	"fmt"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/internal/clitest"
	"github.com/luxeval/lux/luxtest"
	"github.com/luxeval/lux/modeltest"
)

// The driver keeps the contract every driver keeps, checked by the suite
// plugin authors run, with the real CLI against a scripted model.
func TestConformance(t *testing.T) {
	t.Parallel()
	claude := clitest.Find(t, "claude")
	write := modeltest.Start(t, modeltest.Script{
		{ToolCalls: []modeltest.ToolCall{{ID: "toolu_write", Name: "Write", Input: map[string]any{"file_path": "hello.txt", "content": "Hello\n"}}}},
		{Text: "Done."},
	})
	ask := modeltest.Start(t, modeltest.Script{
		{ToolCalls: []modeltest.ToolCall{{ID: "toolu_ask", Name: "AskUserQuestion", Input: map[string]any{
			"questions": []map[string]any{{
				"question": "Which color?", "header": "Color", "multiSelect": false,
				"options": []map[string]any{{"label": "Red", "description": "Use red"}, {"label": "Blue", "description": "Use blue"}},
			}},
		}}}},
		{Text: "Done."},
	})
	failing := modeltest.Start(t, modeltest.Script{{Fail: &modeltest.Failure{Status: 500, Message: "down"}}})

	luxtest.TestDriver(t, claudecode.Plugin(),
		luxtest.DriverScenario{
			Name:          "writes a file",
			Config:        liveConfig(t, claude, write, map[string]any{"permissionMode": "bypassPermissions"}),
			Prompt:        "Write hello.txt.",
			WantExit:      lux.ExitDone,
			WantArtifacts: []string{"hello.txt"},
		},
		luxtest.DriverScenario{
			Name:           "asks a question",
			Config:         liveConfig(t, claude, ask, map[string]any{"permissionMode": "bypassPermissions"}),
			Prompt:         "Ask me which color.",
			WantExit:       lux.ExitDone,
			WantInterrupts: []lux.InterruptKind{lux.Ask},
			Check: func(o luxtest.Outcome) error {
				if n := len(ask.TurnRequests()); n != 2 {
					return fmt.Errorf("the model got %d requests, want 2 (the answer goes back in the second)", n)
				}
				return nil
			},
		},
		luxtest.DriverScenario{
			Name:     "model fails",
			Config:   liveConfig(t, claude, failing, map[string]any{"env": map[string]string{"CLAUDE_CODE_MAX_RETRIES": "0"}}),
			Prompt:   "Do the task.",
			WantExit: lux.ExitError,
		},
	)
}
