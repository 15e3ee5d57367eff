package codex_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/codex"
	"github.com/luxeval/lux/luxtest"
	"github.com/luxeval/lux/modeltest"
)

// The driver keeps the contract every driver keeps, checked by the suite
// plugin authors run, with the real CLI against a scripted model, in both
// of its modes.
func TestConformance(t *testing.T) {
	findCodex(t)
	t.Parallel()
	config := func(srv *modeltest.Server, extra map[string]any) json.RawMessage {
		raw, err := json.Marshal(driverConfig(t, srv, extra))
		require.NoError(t, err)
		return raw
	}
	exec := modeltest.Start(t, modeltest.Script{
		{ToolCalls: []modeltest.ToolCall{patch("*** Begin Patch\n*** Add File: hello.txt\n+Hello\n*** End Patch\n")}},
		{Text: "done"},
	})
	ask := modeltest.Start(t, modeltest.Script{
		{ToolCalls: []modeltest.ToolCall{{Name: "request_user_input", Input: map[string]any{
			"questions": []any{map[string]any{"id": "color", "header": "Colour", "question": "Which colour?",
				"options": []any{map[string]any{"label": "Blue", "description": "calm"}, map[string]any{"label": "Red", "description": "loud"}}}},
		}}}},
		{ToolCalls: []modeltest.ToolCall{shell("echo blue > banner.txt")}},
		{Text: "The banner is blue."},
	})
	failing := modeltest.Start(t, modeltest.Script{{Fail: &modeltest.Failure{Status: 400, Message: "bad request"}}})

	luxtest.TestDriver(t, codex.Plugin(),
		luxtest.DriverScenario{
			Name:          "exec writes a file",
			Config:        config(exec, nil),
			Prompt:        "write hello.txt",
			WantExit:      lux.ExitDone,
			WantArtifacts: []string{"hello.txt"},
		},
		luxtest.DriverScenario{
			Name:           "app-server asks a question",
			Config:         config(ask, map[string]any{"mode": "app-server"}),
			Prompt:         "Make a banner in the colour I like.",
			Answer:         func(in lux.Interrupt) lux.Answer { return lux.Answer{Kind: in.Kind, ID: in.ID, Text: "Blue"} },
			WantExit:       lux.ExitDone,
			WantInterrupts: []lux.InterruptKind{lux.Ask},
			WantArtifacts:  []string{"banner.txt"},
		},
		luxtest.DriverScenario{
			Name:     "model refuses",
			Config:   config(failing, nil),
			Prompt:   "hello?",
			WantExit: lux.ExitError,
		},
	)
}
