package optimize

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/luxeval/lux/experiment"
	"github.com/luxeval/lux/harness"
	"github.com/luxeval/lux/internal/harnesstest"
	"github.com/luxeval/lux/modeltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func reflectiveInput() *Input {
	return &Input{
		Campaign: "house-style", Mutable: []string{"*.md"},
		Current: Candidate{ID: "baseline", Files: map[string]string{"AGENTS.md": "write a.txt spaces\n", "SKILL.md": strings.Repeat("s", 3000)}},
		Observations: []Observation{
			{Profile: "default", CaseID: "train-a", Verdict: "fail", Failed: []FailedAssertion{{ID: "style", Type: "file-contains", Comment: "a.txt lacks tabs"}}, Trajectory: strings.Repeat("t", 4000)},
			{Profile: "default", CaseID: "train-b", Verdict: "fail", Failed: []FailedAssertion{{ID: "style", Type: "file-contains", Comment: "a.txt lacks tabs"}}},
		},
		Alternatives: []Alternative{{Candidate: Candidate{ID: "c1", Files: map[string]string{"AGENTS.md": "write a.txt x\n"}}}},
		Remaining:    Remaining{Candidates: 3},
	}
}

func TestReflectiveParsesStrictOrFencedJSONAndRefusesTheRest(t *testing.T) {
	for _, tc := range []struct {
		name, reply, err string
		files            map[string]string
	}{
		{"strict", `{"proposals":[{"rationale":"tabs","updates":{"AGENTS.md":"write a.txt tabs\n"}}]}`, "", map[string]string{"AGENTS.md": "write a.txt tabs\n"}},
		{"fenced", "```json\n{\"proposals\":[{\"rationale\":\"r\",\"updates\":{\"AGENTS.md\":\"x\"}}]}\n```", "", map[string]string{"AGENTS.md": "x"}},
		{"prose", "I would use tabs.", "not {\"proposals\"", nil},
		{"unknown field", `{"proposals":[{"rationale":"r","updates":{"AGENTS.md":"x"},"extra":1}]}`, "not {\"proposals\"", nil},
		{"not shown", `{"proposals":[{"rationale":"r","updates":{"main.go":"x"}}]}`, "main.go, which it was not shown in full", nil},
		{"failed call", "", "the call failed", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := harnesstest.NewFake(tc.reply)
			props, err := (&Reflective{Model: m}).Propose(t.Context(), reflectiveInput())
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Len(t, props, 1)
			assert.Equal(t, tc.files, props[0].Files)
			assert.Equal(t, int64(110), props[0].Usage.Total(), "the call's usage goes on its proposal")
			require.NotNil(t, props[0].CostUSD)
		})
	}
}

func TestReflectivePromptDropsInTheDocumentedOrder(t *testing.T) {
	in := reflectiveInput()
	full, shown, err := (&Reflective{}).Prompt(in)
	require.NoError(t, err)
	assert.Contains(t, full, "tttt")
	assert.Contains(t, full, `"frontierAlternatives"`)
	assert.True(t, shown["SKILL.md"])

	// Too long for the trajectory: it goes first, the alternatives stay.
	p, _, err := (&Reflective{MaxPromptChars: len(full) - 1000}).Prompt(in)
	require.NoError(t, err)
	assert.NotContains(t, p, "tttt")
	assert.Contains(t, p, `"frontierAlternatives"`)

	// Too long for SKILL.md (files get at most 45% of the prompt): it is
	// named as omitted and may not be rewritten.
	p, shown, err = (&Reflective{MaxPromptChars: 2500, MaxFileChars: 100_000}).Prompt(in)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(p), 2500)
	assert.Contains(t, p, `"omittedFailedTrainRuns": 1`, "the feedback cap (12% of the prompt) keeps the small failure only")
	assert.Contains(t, p, `"omittedFiles": [`)
	assert.False(t, shown["SKILL.md"])
	assert.True(t, shown["AGENTS.md"])
	m := harnesstest.NewFake(`{"proposals":[{"rationale":"r","updates":{"SKILL.md":"x"}}]}`)
	_, err = (&Reflective{Model: m, MaxPromptChars: 2500, MaxFileChars: 100_000}).Propose(t.Context(), in)
	require.ErrorContains(t, err, "SKILL.md, which it was not shown in full")

	_, _, err = (&Reflective{MaxPromptChars: 100}).Prompt(in)
	require.ErrorIs(t, err, ErrPromptTooLong)
}

// TestReflectiveSearchThroughTheRealCLIs runs the search with the
// reflective optimizer on the real Claude Code and Codex CLIs against a
// scripted model: a malformed reply, an edit outside the mutable set, then
// the fix (fenced). The malformed and refused calls are recorded with no
// usage; the fix is promoted on held-out cases; the proposal tokens are
// accounted apart; no prompt names a held-out case.
func TestReflectiveSearchThroughTheRealCLIs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Claude Code and Codex CLIs")
	}
	for _, tc := range []struct {
		name      string
		config    func(testing.TB, *modeltest.Server) harness.Config
		tokens    int64
		maxPrompt int // an oversized prompt must be trimmed to it
	}{
		{"claude", harnesstest.Claude, 1030, 0},
		{"codex", harnesstest.Codex, 0, 0},
		{"claude, trimmed prompt", harnesstest.Claude, 1030, 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := harnesstest.Server(t, modeltest.Script{
				{Text: "Sure! Tabs are better.", Usage: modeltest.Usage{InputTokens: 900, OutputTokens: 9}},
				{Text: `{"proposals":[{"rationale":"document it","updates":{"README.md":"tabs"}}]}`, Usage: modeltest.Usage{InputTokens: 900, OutputTokens: 20}},
				{Text: "```json\n" + `{"proposals":[{"rationale":"state the whole house style","updates":{"AGENTS.md":"write a.txt indent with tabs\n"}}]}` + "\n```", Usage: modeltest.Usage{InputTokens: 1000, OutputTokens: 30}},
			})
			model, err := harness.New(tc.config(t, srv))
			require.NoError(t, err)
			c := project(t)
			res, err := Search(t.Context(), testRegistry(t), c, &Reflective{Model: model, MaxPromptChars: tc.maxPrompt}, Options{RunsRoot: filepath.Join(c.Dir, "runs"), Patience: 3, Budget: Budget{MaxProposalCalls: 3}})
			require.NoError(t, err)
			require.Len(t, res.Lineage, 1)
			assert.Equal(t, "state the whole house style", res.Lineage[0].Rationale)
			require.NotNil(t, res.Final)
			assert.Equal(t, experiment.Promote, res.Final.Decision.Outcome, res.Final.Sentence())
			assert.Equal(t, "c1", res.Final.Decision.Champion)
			assert.Equal(t, 3, res.Spent.ProposalCalls)
			if tc.tokens > 0 {
				assert.Equal(t, tc.tokens, res.Spent.ProposalTokens, "only the good call's usage; failed and refused calls record none")
			} else {
				assert.Positive(t, res.Spent.ProposalTokens)
			}

			reqs := srv.TurnRequests()
			require.NotEmpty(t, reqs)
			for _, r := range reqs {
				assert.NotContains(t, string(r.Body), "heldout", "no validation or test case in the prompt")
				if tc.maxPrompt > 0 {
					assert.Contains(t, string(r.Body), "omittedFailedTrainRuns", "the failures that did not fit are counted, not shown")
					assert.NotContains(t, string(r.Body), "trajectory")
				} else {
					assert.Contains(t, string(r.Body), "trajectory")
				}
			}
		})
	}
}
