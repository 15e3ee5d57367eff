package codex_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/codex"
	"github.com/luxeval/lux/internal/ctxtest"
	"github.com/luxeval/lux/internal/repeattest"
	"github.com/luxeval/lux/modeltest"
	"github.com/luxeval/lux/orchestrator"
)

// Two runs of one case are repetitions of one measurement, in both modes:
// the thread id and the per-run CODEX_HOME never enter the identity.
func TestRepeatedRunsShareOneIdentity(t *testing.T) {
	findCodex(t)
	t.Parallel()
	srv := modeltest.Start(t, modeltest.Script{
		{ToolCalls: []modeltest.ToolCall{shell("echo hi > hello.txt")}},
		{Text: "Done."},
	})
	reg := lux.NewRegistry()
	require.NoError(t, errors.Join(reg.RegisterDriver(codex.Plugin()), assertion.Register(reg)))
	var cases []*lux.Case
	for _, mode := range []string{"exec", "app-server"} {
		cases = append(cases, &lux.Case{
			ID: "hello-" + mode, Prompt: "Write hello.txt.",
			Driver:     &lux.PluginRef{Name: "codex", Config: driverConfig(t, srv, map[string]any{"mode": mode})},
			Assertions: []lux.AssertionSpec{assertion.RunSucceeded(), assertion.FileContains("hello.txt", "hi")},
		})
	}
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	repeattest.Suites(t, ctx, reg, orchestrator.Options{Concurrency: 2}, cases)
}
