package codex_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/modeltest"
)

func TestExecWritesAndRuns(t *testing.T) {
	findCodex(t)
	t.Parallel()
	srv := modeltest.Start(t, modeltest.Script{
		{Thinking: "Write, then check.", Text: "Writing the file.", ToolCalls: []modeltest.ToolCall{
			patch("*** Begin Patch\n*** Add File: hello.txt\n+Hello from the model\n*** End Patch\n"),
		}, Usage: modeltest.Usage{InputTokens: 1000, OutputTokens: 50, ReasoningTokens: 10}},
		{ToolCalls: []modeltest.ToolCall{shell("cat hello.txt && echo ok > b.txt")},
			Usage: modeltest.Usage{InputTokens: 200, OutputTokens: 30, CacheReadTokens: 1000}},
		{Text: "done", Usage: modeltest.Usage{InputTokens: 300, OutputTokens: 5, CacheReadTokens: 1000}},
	})
	run := drive(t, parse(t, driverConfig(t, srv, nil)), "write hello", nil)

	end := run.terminal()
	require.Equal(t, lux.EventDone, end.Type, "%+v", end.Error)
	assert.Equal(t, "Hello from the model\n", run.file(t, "hello.txt"))
	assert.Equal(t, "ok\n", run.file(t, "b.txt"))
	// Usage as the CLI reported it: input 1000+1200+1300 of which 2000
	// cached, output 85.
	assert.Equal(t, &lux.TokenUsage{Input: 1500, Output: 85, CacheRead: 2000}, end.Done.Usage)
	require.Equal(t, lux.EventReady, run.events[0].Type)
	assert.Equal(t, "codex-cli 0.169.0", run.events[0].Ready.AgentVersion)
	assertHermetic(t, srv)
}
