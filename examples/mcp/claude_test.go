package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/builtin"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/internal/clitest"
	"github.com/luxeval/lux/modeltest"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// TestClaudeCodeUsesTheServer is the agent case of docs/drivers.md: the real Claude
// Code CLI, given notesserver in an MCP config, calls its tools (the model
// is scripted on 127.0.0.1), and the tool-result assertions that grade the
// probe grade the agent's MCP calls.
func TestClaudeCodeUsesTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real Claude Code CLI")
	}
	claude := clitest.Find(t, "claude")
	root := t.TempDir()
	bin := t.TempDir()
	server, err := buildServer(t.Context(), bin)
	require.NoError(t, err)
	fixtures := t.TempDir()
	mcpConfig, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"notes": map[string]any{"command": server}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(fixtures, "mcp.json"), mcpConfig, 0o644))

	srv := modeltest.Start(t, modeltest.Script{
		{
			Text: "I'll save the note.",
			ToolCalls: []modeltest.ToolCall{
				{Name: "mcp__notes__add_note", Input: map[string]any{"title": "groceries", "body": "- milk\n- eggs"}},
				{Name: "mcp__notes__add_note", Input: map[string]any{"title": "../escape", "body": "x"}},
			},
		},
		{ToolCalls: []modeltest.ToolCall{{Name: "mcp__notes__list_notes", Input: map[string]any{}}}},
		{Text: "Saved your shopping list as groceries."},
	})
	c := &lux.Case{
		ID:       "agent-saves-a-note",
		Prompt:   "Save my shopping list (milk, eggs) as a note called groceries.",
		Fixtures: fixtures,
		Driver: &lux.PluginRef{Name: claudecode.Name, Config: map[string]any{
			"command": claude, "baseUrl": srv.URL(), "inheritEnv": false,
			"env":          map[string]string{"ANTHROPIC_API_KEY": "sk-scripted"},
			"extraArgs":    []string{"--mcp-config", "mcp.json", "--strict-mcp-config"},
			"allowedTools": []string{"mcp__notes__add_note", "mcp__notes__list_notes"},
		}},
		Assertions: []lux.AssertionSpec{
			assertion.RunSucceeded(),
			// Claude Code's structured content of an MCP result holds the
			// server's under /structuredContent.
			assertion.ToolInvocation("mcp__notes__add_note", assertion.Input(assertion.Match{JSONPointer: "/title", Equals: "groceries"}),
				assertion.Output(assertion.Match{JSONPointer: "/structuredContent/path", Equals: "notes/groceries.md"})),
			assertion.ToolInvocation("mcp__notes__add_note", assertion.ID("refused"), assertion.ResultKind(assertion.ResultError),
				assertion.Output(assertion.Match{Contains: "invalid title"})),
			assertion.ToolResultContains("mcp__notes__list_notes", "groceries"),
			assertion.FileRegexSet("notes/groceries.md", assertion.ModeAll, []string{"milk", "eggs"}),
		},
	}
	// The agent's sandbox lets it run the server it is configured with.
	o := orchestrator.New(builtin.Registry(), orchestrator.Options{RunsRoot: root, Sandbox: sandbox.Config{ReadOnly: []string{bin}}})
	res, err := o.RunSuite(t.Context(), []*lux.Case{c})
	require.NoError(t, err)
	require.Len(t, res.Manifest.Items, 1)
	suite, err := record.ReadSuite(res.Dir)
	require.NoError(t, err)
	run, err := record.ReadRun(suite.RunDir(0), record.ReadOptions{Events: true})
	require.NoError(t, err)
	grading, err := json.MarshalIndent(run.Grading, "", "  ")
	require.NoError(t, err)
	item := res.Manifest.Items[0]
	require.NotNil(t, item.Passed, "graded: %s", grading)
	assert.True(t, *item.Passed, "every assertion passes: %s", grading)

	// The agent's MCP calls are ordinary tool events, failed one included.
	outcomes := record.SummarizeTools(run.Events)
	assert.Equal(t, 3, outcomes.Total)
	assert.Equal(t, 1, outcomes.Failed)
}
