package rubric_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/assertion/rubric"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/harness"
	"github.com/luxeval/lux/internal/clitest"
	"github.com/luxeval/lux/internal/harnesstest"
	"github.com/luxeval/lux/modeltest"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// A real agent (Claude Code against a scripted server) writes a README; a
// real judge (Claude Code against another) answers invalid JSON, then a
// verdict. The run records the agent's and the judge's usage apart, and a
// regrade with the judge's next answer writes a second grading beside the
// first.
func TestRubricJudgesARealRunAndRegrades(t *testing.T) {
	t.Parallel()
	claude := clitest.Find(t, "claude")
	agent := modeltest.Start(t, modeltest.Script{
		{ToolCalls: []modeltest.ToolCall{{Name: "Write", Input: map[string]any{"file_path": "README.md", "content": "# Tool\n\nRun the tests with `go test ./...`.\n"}}},
			Usage: modeltest.Usage{InputTokens: 1000, OutputTokens: 40}},
		{Text: "I wrote the README.", Usage: modeltest.Usage{InputTokens: 1100, OutputTokens: 8}},
	})
	judge := harnesstest.Server(t, modeltest.Script{
		{Text: "The README looks good to me!", Usage: modeltest.Usage{InputTokens: 900, OutputTokens: 9}},
		{Text: `{"score": 0.9, "comment": "It names the test command."}`, Usage: modeltest.Usage{InputTokens: 950, OutputTokens: 15}},
		{Text: "```json\n{\"score\": 0.4, \"comment\": \"Too short.\"}\n```", Usage: modeltest.Usage{InputTokens: 900, OutputTokens: 12}},
	})
	reg := lux.NewRegistry()
	require.NoError(t, errors.Join(reg.RegisterDriver(claudecode.Plugin()), assertion.Register(reg), reg.RegisterAssertion(rubric.Plugin())))
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: t.TempDir(), Harness: harnesstest.Claude(t, judge)})
	c := &lux.Case{
		ID: "readme", Prompt: "Write a README that says how to run the tests.",
		Driver: &lux.PluginRef{Name: claudecode.Name, Config: map[string]any{
			"command": claude, "baseUrl": agent.URL(), "inheritEnv": false,
			"env": map[string]string{"ANTHROPIC_API_KEY": "sk-test"}, "permissionMode": "bypassPermissions",
		}},
		Assertions: []lux.AssertionSpec{
			{Type: rubric.Type, ID: "readme-clear", Config: map[string]any{"criteria": "The README says how to run the tests.", "evidence": map[string]any{"artifacts": []string{"*.md"}}}},
		},
	}
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	res, err := o.Run(ctx, c)
	require.NoError(t, err)
	require.Equal(t, record.VerdictPass, res.Verdict(), "exit %s: %s; %+v", res.Metadata.ExitReason, res.Metadata.Reason, res.Grading.Assertions)

	out := res.Grading.Assertions[0]
	assert.Equal(t, 0.8, out.Threshold, "the rubric's default threshold is recorded")
	assert.Equal(t, 0.9, out.Score)
	detail := out.Detail.(map[string]any)
	assert.Equal(t, "claude-code:claude-haiku-4-5", detail["judge"])
	assert.Equal(t, 2, detail["attempts"])

	// What the judge received: the task, the criterion, the README in a
	// fence, and no tools.
	reqs := judge.TurnRequests()
	require.Len(t, reqs, 2)
	for _, r := range reqs {
		assert.Empty(t, r.Tools)
	}
	first := reqs[0].UserText()
	assert.Contains(t, first, "Criterion to judge:\nThe README says how to run the tests.")
	assert.Contains(t, first, "--- README.md ---\n# Tool")
	assert.Contains(t, first, "<<<AGENT_TEXT_")
	assert.Contains(t, reqs[1].UserText(), "Your previous answer was not valid")

	// Usage: the agent's and the judge's apart, each summed over its calls.
	u := res.Metadata.Usage
	require.NotNil(t, u.Agent)
	assert.Equal(t, lux.TokenUsage{Input: 2100, Output: 48}, *u.Agent)
	assert.Equal(t, lux.TokenUsage{Input: 1850, Output: 24}, u.Judge.TokenUsage)
	assert.Equal(t, 2, u.Judge.Calls)
	assert.InDelta(t, 1850*1e-6+24*5e-6, u.Judge.CostUSD, 1e-9, "Claude Code's price for claude-haiku-4-5")
	assert.Equal(t, lux.ModelUsage{}, u.Answerer)
	var onDisk record.Metadata
	require.NoError(t, record.ReadJSON(filepath.Join(res.Dir, record.MetadataFile), &onDisk))
	assert.Equal(t, u.Judge, onDisk.Usage.Judge)

	// Regrade: the judge now says 0.4; the first grading stays as it was.
	before, err := os.ReadFile(filepath.Join(res.Dir, record.GradingFile))
	require.NoError(t, err)
	g, path, err := o.Regrade(ctx, res.Dir, nil)
	require.NoError(t, err)
	assert.Equal(t, record.VerdictFail, record.RunVerdict(res.Metadata, g.Report))
	assert.Equal(t, 0.4, g.Report.Assertions[0].Score)
	assert.Equal(t, 1, g.JudgeUsage.Calls)
	assert.Equal(t, filepath.Join(res.Dir, record.GradingsDir), filepath.Dir(path))
	after, err := os.ReadFile(filepath.Join(res.Dir, record.GradingFile))
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "grading.json is never rewritten")
	gs, err := record.ReadRegradings(res.Dir)
	require.NoError(t, err)
	require.Len(t, gs, 1)
	require.NoError(t, judge.Err())
}

// A judge whose every answer is invalid, or whose call fails, leaves the
// case without a verdict.
func TestRubricWithoutAVerdictThroughTheRealCLI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		script modeltest.Script
		want   string
	}{
		{"invalid twice", modeltest.Script{{Text: "yes"}, {Text: `{"score": 1.5, "comment": "great"}`}}, "no valid verdict in 2 attempts"},
		{"call failure", modeltest.Script{{Fail: &modeltest.Failure{Status: 400, Message: "model not found"}}}, "model not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := harnesstest.Server(t, tc.script)
			raw, err := harness.Inherit(mustJSON(t, harnesstest.Claude(t, srv)), []byte(`{"criteria": "The agent said hello."}`))
			require.NoError(t, err)
			chk, err := rubric.Plugin().Parse(raw)
			require.NoError(t, err)
			ctx, cancel := ctxtest.Safety(t)
			defer cancel()
			_, err = chk.Evaluate(ctx, &lux.Run{Case: &lux.Case{Prompt: "Say hello."}, Events: []lux.Event{say("hello")}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := lux.ConfigJSON(v)
	require.NoError(t, err)
	return raw
}
