package codex_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/modeltest"
	"github.com/luxeval/lux/sandbox"
)

// A run that ends in an API error after a model call keeps the usage the
// CLI reported for it (app-server reports usage per call; exec reports
// usage only with a completed turn, so an exec run that fails has none,
// but where the run is sandboxed at landlock+netns, the sandbox counted
// the tokens of the model responses it forwarded, and says so).
func TestAPIErrorRunKeepsUsage(t *testing.T) {
	findCodex(t)
	t.Parallel()
	for mode, want := range map[string]*lux.TokenUsage{
		"app-server": {Input: 300, Output: 10},
		"exec":       nil,
	} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.Start(t, modeltest.Script{
				{ToolCalls: []modeltest.ToolCall{shell("echo hi > a.txt")}, Usage: modeltest.Usage{InputTokens: 300, OutputTokens: 10}},
				{Fail: &modeltest.Failure{Status: 400, Message: "scripted failure: context window exceeded"}},
			})
			res, _ := loop(t, &lux.Case{
				ID: "codex-error-usage-" + mode, Prompt: "Write a.txt.",
				Driver:     &lux.PluginRef{Name: "codex", Config: driverConfig(t, srv, map[string]any{"mode": mode})},
				Assertions: []lux.AssertionSpec{assertion.RunSucceeded()},
			})
			m := res.Metadata
			require.Equal(t, lux.ExitError, m.ExitReason, m.Reason)
			assert.Contains(t, m.Reason, "context window exceeded")
			method := ""
			if l, _, _ := sandbox.Available(); want == nil && l == sandbox.LevelNetns {
				want, method = &lux.TokenUsage{Input: 300, Output: 10}, sandbox.MeterMethod
			}
			assert.Equal(t, want, m.Usage.Agent)
			assert.Equal(t, method, m.Usage.AgentMethod)
		})
	}
}
