package claudecode_test

import (
	"encoding/json"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/internal/drivertest"
	"github.com/luxeval/lux/modeltest"
)

// The key of apiKeyEnv reaches the CLI and nothing the run leaves behind:
// not the config, its experiment form or identity, not the run record.
func TestAPIKeyStaysOutOfRecords(t *testing.T) {
	const secret = "sk-ant-review-7f3a9c1e5b"
	t.Setenv("LUX_REVIEW_ANTHROPIC_KEY", secret)
	res, srv := runCase(t, &lux.Case{
		ID:         "secret",
		Prompt:     "Say hello.",
		Assertions: []lux.AssertionSpec{assertion.RunSucceeded()},
	}, modeltest.Script{
		{ToolCalls: []modeltest.ToolCall{{Name: "Bash", Input: map[string]any{"command": "echo hi > hi.txt", "description": "say hi"}}}},
		{Text: "hello"},
	}, map[string]any{
		"apiKeyEnv":      "LUX_REVIEW_ANTHROPIC_KEY",
		"env":            map[string]string{},
		"permissionMode": "bypassPermissions",
	})
	requirePassed(t, res)
	drivertest.KeySent(t, srv, "X-Api-Key", secret)
	raw := json.RawMessage(`{"apiKeyEnv": "LUX_REVIEW_ANTHROPIC_KEY", "command": "/bin/true"}`)
	drivertest.SecretStaysOut(t, claudecode.Plugin(), raw, res.Dir, secret)
}
