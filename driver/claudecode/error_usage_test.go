package claudecode_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/modeltest"
)

// A run that ends in an API error keeps what the agent spent before it:
// the CLI's result line reports the usage and cost of the turns that ran.
func TestAPIErrorRunKeepsUsageAndCost(t *testing.T) {
	t.Parallel()
	script := modeltest.Script{
		{
			ToolCalls: []modeltest.ToolCall{{Name: "Write", Input: map[string]any{"file_path": "a.txt", "content": "a\n"}}},
			Usage:     modeltest.Usage{InputTokens: 300, OutputTokens: 10},
		},
		{Fail: &modeltest.Failure{Status: 400, Type: "invalid_request_error", Message: "thinking budget exceeds the limit"}},
	}
	res, _ := runCase(t, &lux.Case{
		ID: "api-error-after-a-turn", Prompt: "Write a.txt.",
		Assertions: []lux.AssertionSpec{assertion.RunSucceeded()},
	}, script, map[string]any{"model": "claude-sonnet-4-5", "permissionMode": "bypassPermissions"})
	m := res.Metadata
	require.Equal(t, lux.ExitError, m.ExitReason, m.Reason)
	assert.Contains(t, m.Reason, "thinking budget exceeds the limit")
	require.NotNil(t, m.Usage.Agent, "the agent's usage is lost on an error run")
	assert.Equal(t, int64(300), m.Usage.Agent.Input)
	assert.Equal(t, int64(10), m.Usage.Agent.Output)
	require.NotNil(t, m.Usage.AgentCostUSD, "the agent's cost is lost on an error run")
	assert.InDelta(t, 300*3e-6+10*15e-6, *m.Usage.AgentCostUSD, 1e-9)
}
