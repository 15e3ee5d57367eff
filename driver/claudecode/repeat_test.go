package claudecode_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/internal/clitest"
	"github.com/luxeval/lux/internal/ctxtest"
	"github.com/luxeval/lux/internal/repeattest"
	"github.com/luxeval/lux/modeltest"
	"github.com/luxeval/lux/orchestrator"
)

// Two runs of one case are repetitions of one measurement: the per-run
// workspace and session id the CLI reports never enter the identity.
func TestRepeatedRunsShareOneIdentity(t *testing.T) {
	t.Parallel()
	claude := clitest.Find(t, "claude")
	srv := modeltest.Start(t, modeltest.Script{
		{ToolCalls: []modeltest.ToolCall{{Name: "Write", Input: map[string]any{"file_path": "hello.txt", "content": "hi\n"}}}},
		{Text: "Done."},
	})
	reg := lux.NewRegistry()
	require.NoError(t, errors.Join(reg.RegisterDriver(claudecode.Plugin()), assertion.Register(reg)))
	c := &lux.Case{
		ID: "hello", Prompt: "Write hello.txt.",
		Driver: &lux.PluginRef{Name: claudecode.Name, Config: map[string]any{
			"command": claude, "baseUrl": srv.URL(), "inheritEnv": false, "permissionMode": "bypassPermissions",
			"env": map[string]string{"ANTHROPIC_API_KEY": "sk-test"},
		}},
		Assertions: []lux.AssertionSpec{assertion.RunSucceeded(), assertion.FileContains("hello.txt", "hi")},
	}
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	repeattest.Suites(t, ctx, reg, orchestrator.Options{}, []*lux.Case{c})
}
