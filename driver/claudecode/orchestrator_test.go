package claudecode_test

import (
	"context"
	"errors"
	"testing"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/scripted"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/internal/clitest"
	"github.com/luxeval/lux/modeltest"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// runCase runs one case through the orchestrator, with the real CLI
// against a server for script and the scripted answerer.
func runCase(t *testing.T, c *lux.Case, script modeltest.Script, driverCfg map[string]any, rules ...scripted.Rule) (*record.Run, *modeltest.Server) {
	t.Helper()
	claude := clitest.Find(t, "claude")
	srv := modeltest.Start(t, script)
	reg := lux.NewRegistry()
	require.NoError(t, errors.Join(
		reg.RegisterDriver(claudecode.Plugin()),
		reg.RegisterAnswerer(scripted.Plugin()),
		assertion.Register(reg),
	))
	cfg := map[string]any{
		"command": claude, "baseUrl": srv.URL(), "inheritEnv": false,
		"env": map[string]string{"ANTHROPIC_API_KEY": "sk-test"},
	}
	for k, v := range driverCfg {
		cfg[k] = v
	}
	c.Driver = &lux.PluginRef{Name: claudecode.Name, Config: cfg}
	if len(rules) > 0 {
		c.Answerer = &lux.PluginRef{Name: scripted.Name, Config: scripted.Config{Rules: rules}}
	}
	// The strongest level this machine offers (landlock+netns where the
	// kernel allows namespaces): the CLI must work there too.
	strongest, _, _ := sandbox.Available()
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: t.TempDir(), Sandbox: sandbox.Config{Level: strongest}})
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	res, err := o.Run(ctx, c)
	require.NoError(t, err)
	if l := strongest; l.AtLeast(sandbox.LevelLandlock) {
		// The CLI ran confined, with its own sandbox off, and the record says so.
		sb := res.Metadata.Provenance.Sandbox
		require.NotNil(t, sb)
		assert.Equal(t, l, sb.Level)
		assert.Equal(t, []string{`claude-code: --settings {"sandbox":{"enabled":false}} (lux's sandbox confines it)`}, sb.AgentSandbox)
	}
	return res, srv
}

func requirePassed(t *testing.T, res *record.Run) {
	t.Helper()
	for _, a := range res.Grading.Assertions {
		assert.True(t, a.Passed, "assertion %s: %s %s", a.ID, a.Comment, a.Error)
	}
	require.Equal(t, record.VerdictPass, res.Verdict(), "exit %s: %s", res.Metadata.ExitReason, res.Metadata.Reason)
}

func TestCaseWritesAndRunsACommand(t *testing.T) {
	t.Parallel()
	script := modeltest.Script{
		{
			ToolCalls: []modeltest.ToolCall{{Name: "Write", Input: map[string]any{"file_path": "notes.txt", "content": "one\ntwo\n"}}},
			Usage:     modeltest.Usage{InputTokens: 2000, OutputTokens: 60, CacheCreationTokens: 500},
		},
		{
			ToolCalls: []modeltest.ToolCall{{Name: "Bash", Input: map[string]any{"command": "wc -l < notes.txt > count.txt", "description": "count"}}},
			Usage:     modeltest.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 2500},
		},
		{Text: "notes.txt has 2 lines.", Usage: modeltest.Usage{InputTokens: 50, OutputTokens: 10, CacheReadTokens: 2600}},
	}
	res, _ := runCase(t, &lux.Case{
		ID:     "notes",
		Prompt: "Write notes.txt with two lines, then count them into count.txt with wc.",
		Assertions: []lux.AssertionSpec{
			assertion.RunSucceeded(),
			assertion.FileContains("notes.txt", "two"),
			assertion.FileMatches("count.txt", `^\s*2\s*$`),
			assertion.ToolCalled("Write"),
			assertion.ToolCalled("Bash"),
		},
	}, script, map[string]any{"model": "claude-sonnet-4-5", "permissionMode": "bypassPermissions"})
	requirePassed(t, res)

	m := res.Metadata
	assert.Equal(t, lux.ExitDone, m.ExitReason)
	assert.Equal(t, record.ToolOutcomes{Reported: 2, Total: 2, Succeeded: 2}, m.ToolCalls)
	// Usage and cost as the CLI reported them: the sums of the script's
	// usage, priced by the CLI's table for claude-sonnet-4-5 ($3 in, $15
	// out, $3.75 cache write, $0.30 cache read per million tokens).
	require.NotNil(t, m.Usage.Agent)
	assert.Equal(t, lux.TokenUsage{Input: 2150, Output: 90, CacheRead: 5100, CacheCreation: 500}, *m.Usage.Agent)
	require.NotNil(t, m.Usage.AgentCostUSD)
	assert.InDelta(t, 2150*3e-6+90*15e-6+5100*0.3e-6+500*3.75e-6, *m.Usage.AgentCostUSD, 1e-9)
	require.Len(t, m.Provenance.Runtime.Commands, 1)
	assert.Regexp(t, `^\d+\.\d+\.\d+$`, m.Provenance.Runtime.Commands[0].Version)
	assert.Regexp(t, `^\d+\.\d+\.\d+ \(Claude Code\)$`, m.Provenance.Runtime.Commands[0].RawVersion)
	assert.Equal(t, m.Provenance.Runtime.Commands[0].Version, m.Driver.AgentVersion, "one normalized version")
	assert.Equal(t, claudecode.AgentID, m.Driver.AgentID)
}

func TestCaseQuestionAnsweredByTheScriptedAnswerer(t *testing.T) {
	t.Parallel()
	question := "Which database should the service use?"
	script := modeltest.Script{
		{ToolCalls: []modeltest.ToolCall{{Name: "AskUserQuestion", Input: map[string]any{
			"questions": []map[string]any{{
				"question": question, "header": "Database", "multiSelect": false,
				"options": []map[string]any{{"label": "Postgres", "description": "SQL"}, {"label": "Redis", "description": "KV"}},
			}},
		}}}},
		{ToolCalls: []modeltest.ToolCall{{Name: "Write", Input: map[string]any{"file_path": "db.txt", "content": "Postgres\n"}}}},
		{Text: "Done."},
	}
	res, srv := runCase(t, &lux.Case{
		ID:       "database",
		Prompt:   "Ask me which database to use, then write it to db.txt.",
		Requires: []lux.Capability{lux.CanAsk, lux.CanApprove},
		Assertions: []lux.AssertionSpec{
			assertion.InterruptCount(assertion.Kind(lux.Ask), assertion.Min(1), assertion.Max(1)),
			assertion.InterruptCount(assertion.Kind(lux.Approve), assertion.Min(1), assertion.Max(1)),
			assertion.FileContains("db.txt", "Postgres"),
		},
	}, script, map[string]any{"permissionMode": "default"},
		scripted.Reply(`(?i)which database`, "Postgres"),
		scripted.Approve(`"tool":"Write"`),
	)
	requirePassed(t, res)
	assert.Equal(t, "scripted", res.Metadata.Answerer.Name)

	reqs := srv.TurnRequests()
	require.Len(t, reqs, 3)
	answer, ok := reqs[1].ToolResult("AskUserQuestion")
	require.True(t, ok, "the answer did not reach the model")
	assert.Contains(t, answer.Text, `"`+question+`"="Postgres"`)
}

func TestCaseAPIError(t *testing.T) {
	t.Parallel()
	script := modeltest.Script{{Fail: &modeltest.Failure{Status: 400, Type: "invalid_request_error", Message: "thinking budget exceeds the limit"}}}
	res, _ := runCase(t, &lux.Case{
		ID: "api-error", Prompt: "Say hi.",
		Assertions: []lux.AssertionSpec{assertion.RunSucceeded()},
	}, script, nil)
	m := res.Metadata
	assert.Equal(t, lux.ExitError, m.ExitReason)
	assert.Contains(t, m.Reason, "API Error: 400")
	assert.Contains(t, m.Reason, "thinking budget exceeds the limit")
	assert.Equal(t, record.VerdictFail, res.Verdict())
}

func TestPreflightMissingCLI(t *testing.T) {
	t.Parallel()
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(claudecode.Plugin()))
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: t.TempDir()})
	diags := o.Preflight(context.Background(), []*lux.Case{{
		ID: "x", Prompt: "hi",
		Driver: &lux.PluginRef{Name: claudecode.Name, Config: map[string]any{"command": "lux-no-such-claude"}},
	}})
	assert.False(t, orchestrator.Healthy(diags))
	var found bool
	for _, d := range diags {
		if d.ID == "command:lux-no-such-claude" {
			found = true
			assert.Equal(t, orchestrator.StatusFail, d.Status)
			assert.Contains(t, d.Message+" "+d.Detail, claudecode.InstallHint)
		}
	}
	assert.True(t, found, "no diagnostic for the missing CLI: %+v", diags)
}
