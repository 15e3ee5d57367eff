package optimize

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luxeval/lux/experiment"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckRefusesFilesOutsideTheMutableSetOrNotShownInFull(t *testing.T) {
	in := &Input{Mutable: []string{"*.md"}, Current: Candidate{ID: "baseline", Files: map[string]string{"AGENTS.md": "a"}}}
	mutable := func(p string) bool { return strings.HasSuffix(p, ".md") }
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"outside the mutable set", map[string]string{"main.go": "x"}, "main.go is not a mutable file"},
		{"mutable but not shown", map[string]string{"SKILL.md": "x"}, "SKILL.md was not shown in full"},
		{"changes nothing", map[string]string{"AGENTS.md": "a"}, "changes nothing"},
		{"no file", nil, "names no file"},
		{"not text", map[string]string{"AGENTS.md": "a\x00b"}, "not UTF-8 text without NUL bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(in, Proposal{Files: tc.files}, mutable)
			require.ErrorIs(t, err, ErrRefused)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	require.NoError(t, Check(in, Proposal{Files: map[string]string{"AGENTS.md": "b"}}, mutable))
}

func TestSearchFindsTheFixAndTheHeldOutGatePromotesItNotTheOverfit(t *testing.T) {
	c := project(t)
	opt := &scripted{steps: []step{
		{err: errors.New("the model's reply is not JSON")},
		propose("the train cases check for tabs", overfitAgents),
		{props: []Proposal{{Files: map[string]string{"README.md": "x"}}}},
		propose("state the whole house style", fixAgents),
	}}
	runs := filepath.Join(c.Dir, "runs")
	res, err := Search(t.Context(), testRegistry(t), c, opt, Options{RunsRoot: runs, Patience: 5, Budget: Budget{MaxProposalCalls: 4}})
	require.NoError(t, err)
	assert.Contains(t, res.StopReason, "proposal calls budget")

	require.Len(t, res.Lineage, 2)
	assert.Equal(t, Step{Candidate: "c1", Parent: "baseline", Call: 2, Rationale: "the train cases check for tabs", Train: 1, Gain: 1, Evaluated: true}, res.Lineage[0])
	assert.Equal(t, "c2", res.Lineage[1].Candidate)
	assert.InDelta(t, 1, res.Lineage[1].Train, 1e-9)

	require.NotNil(t, res.Final)
	assert.Equal(t, experiment.Promote, res.Final.Decision.Outcome, res.Final.Sentence())
	assert.Equal(t, "c2", res.Final.Decision.Champion, "the fix, not the overfit, holds up on held-out cases")

	entries, err := ReadJournal(res.Dir)
	require.NoError(t, err)
	var errs []string
	for _, e := range entries {
		if e.Kind == "proposal" && e.Error != "" {
			errs = append(errs, e.Error)
			assert.True(t, e.Usage.IsZero(), "a failed or refused call records no usage: %+v", e)
		}
	}
	require.Len(t, errs, 2)
	assert.Contains(t, errs[0], "not JSON")
	assert.Contains(t, errs[1], "README.md is not a mutable file")
}

func TestTheHeldOutGateRefusesAProposalThatOnlyFitsTrain(t *testing.T) {
	c := project(t)
	opt := &scripted{steps: []step{propose("the train cases check for tabs", overfitAgents)}}
	res, err := Search(t.Context(), testRegistry(t), c, opt, Options{RunsRoot: filepath.Join(c.Dir, "runs"), Patience: 1})
	require.NoError(t, err)
	require.Len(t, res.Lineage, 1)
	assert.InDelta(t, 1, res.Lineage[0].Gain, 1e-9, "a full gain on train")
	require.NotNil(t, res.Final)
	assert.NotEqual(t, experiment.Promote, res.Final.Decision.Outcome, res.Final.Sentence())
	assert.NotEqual(t, "c1", res.Final.Decision.Champion)
}

func TestTheOptimizerIsNeverShownValidationOrTestCases(t *testing.T) {
	c := project(t)
	opt := &scripted{steps: []step{propose("tabs", overfitAgents), propose("whole rule", fixAgents)}}
	_, err := Search(t.Context(), testRegistry(t), c, opt, Options{RunsRoot: filepath.Join(c.Dir, "runs"), Patience: 5, Budget: Budget{MaxProposalCalls: 3}})
	require.NoError(t, err)
	require.Len(t, opt.inputs, 3)
	for _, in := range opt.inputs {
		b, err := json.Marshal(in)
		require.NoError(t, err)
		assert.Contains(t, string(b), "train-a")
		assert.NotContains(t, string(b), "heldout", "no validation or test case id or prompt")
		assert.NotContains(t, string(b), "indent with tabs\"", "no held-out assertion")
	}
	assert.NotEmpty(t, opt.inputs[0].Observations[0].Failed, "failed assertions are shown")
	assert.NotEmpty(t, opt.inputs[0].Observations[0].Trajectory)
	assert.Len(t, opt.inputs[2].Alternatives, 1, "the other frontier member")
}

func TestTheSearchStopsOnWallTimeStopFileAndPatience(t *testing.T) {
	t.Run("wall time on the injected clock", func(t *testing.T) {
		c := project(t)
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		opt := &scripted{}
		clock := func() time.Time { now = now.Add(time.Minute); return now }
		res, err := Search(t.Context(), testRegistry(t), c, opt, Options{RunsRoot: filepath.Join(c.Dir, "runs"), Now: clock, Budget: Budget{MaxWallTime: time.Minute}})
		require.NoError(t, err)
		assert.Contains(t, res.StopReason, "wall time")
		assert.Empty(t, opt.inputs)
	})
	t.Run("stop file", func(t *testing.T) {
		c := project(t)
		stop := filepath.Join(c.Dir, "STOP")
		require.NoError(t, os.WriteFile(stop, nil, 0o644))
		res, err := Search(t.Context(), testRegistry(t), c, &scripted{}, Options{RunsRoot: filepath.Join(c.Dir, "runs"), StopFile: stop})
		require.NoError(t, err)
		assert.Contains(t, res.StopReason, "stop file")
		assert.Nil(t, res.Final, "nothing proposed: the baseline stays")
	})
	t.Run("patience", func(t *testing.T) {
		c := project(t)
		opt := &scripted{steps: []step{propose("spaces again", "write a.txt spaces\n"), propose("still", "write a.txt nope\n")}}
		res, err := Search(t.Context(), testRegistry(t), c, opt, Options{RunsRoot: filepath.Join(c.Dir, "runs"), Patience: 2})
		require.NoError(t, err)
		assert.Contains(t, res.StopReason, "no train case improved in 2")
		assert.Len(t, opt.inputs, 2)
	})
}

func TestProposalTokensCountInTheSearchBudget(t *testing.T) {
	c := project(t)
	// The baseline's two train runs spend 2 × 41 tokens; each proposal
	// call 120. The budget allows the baseline and one call, not two.
	opt := &scripted{steps: []step{propose("tabs", overfitAgents), propose("whole rule", fixAgents)}}
	res, err := Search(t.Context(), testRegistry(t), c, opt, Options{RunsRoot: filepath.Join(c.Dir, "runs"), Patience: 5, Budget: Budget{MaxTokens: 82 + 120 + 1}})
	require.NoError(t, err)
	assert.Contains(t, res.StopReason, "tokens budget")
	assert.Len(t, opt.inputs, 1, "no second call")
	assert.Equal(t, int64(120), res.Spent.ProposalTokens)
	assert.Greater(t, res.Spent.Tokens, int64(82+120))
}

func TestTheHeldOutDecisionFollowsTheSequentialRuleWhenDeclared(t *testing.T) {
	c := project(t)
	zero := 0.0
	c.Sequential = &experiment.Sequential{MaxRounds: 6, FutilityWinRate: 0.6}
	c.Objectives.Constraints = []experiment.Constraint{
		{Metric: "quality.passRate", Split: experiment.SplitValidation, RelativeTo: experiment.BaselineID, Min: &zero},
		{Metric: "quality.passRate", Split: experiment.SplitTest, RelativeTo: experiment.BaselineID, Min: &zero},
	}
	opt := &scripted{steps: []step{propose("tabs", overfitAgents), propose("whole rule", fixAgents)}}
	res, err := Search(t.Context(), testRegistry(t), c, opt, Options{RunsRoot: filepath.Join(c.Dir, "runs"), Patience: 5, Budget: Budget{MaxProposalCalls: 2}})
	require.NoError(t, err)
	require.NotNil(t, res.Final)
	require.NotNil(t, res.Final.Decision.Sequential, "decided by the sequential rule")
	assert.Equal(t, "c2", res.Final.Decision.Champion, res.Final.Sentence())
	assert.NotContains(t, res.Final.Sentence(), "promote c1")
}

func TestAHeldOutExperimentOutOfBudgetEndsTheSearchFailedNotBroken(t *testing.T) {
	c := project(t)
	c.Budget.MaxRuns = 20 // the held-out experiment needs 3 × 12
	opt := &scripted{steps: []step{propose("tabs", overfitAgents), propose("whole rule", fixAgents)}}
	res, err := Search(t.Context(), testRegistry(t), c, opt, Options{RunsRoot: filepath.Join(c.Dir, "runs"), Patience: 5, Budget: Budget{MaxProposalCalls: 2, MaxRuns: 100}})
	require.NoError(t, err)
	require.NotNil(t, res.Final)
	assert.Equal(t, experiment.StatusFailed, res.Final.Manifest.Status)
	assert.Contains(t, res.Final.Manifest.Error, "budget")
	entries, err := ReadJournal(res.Dir)
	require.NoError(t, err)
	last := entries[len(entries)-1]
	assert.Equal(t, "final", last.Kind)
	assert.Contains(t, last.Error, "budget")

	again, err := Resume(t.Context(), testRegistry(t), res.Dir, c, opt, Options{Patience: 5, Budget: Budget{MaxProposalCalls: 2, MaxRuns: 100}})
	require.NoError(t, err, "a finished search resumes to its result")
	assert.Equal(t, res.Final.Dir, again.Final.Dir)
	assert.Len(t, opt.inputs, 2, "no new proposal call")
}
