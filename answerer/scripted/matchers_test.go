package scripted_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/scripted"
)

func answerWith(t *testing.T, cfg scripted.Config, in lux.Interrupt) (lux.Answer, error) {
	t.Helper()
	ac, err := scripted.New(cfg)
	require.NoError(t, err)
	a, err := ac.Prepare(context.Background(), lux.AnswererInfo{})
	require.NoError(t, err)
	return a.Answer(context.Background(), in, nil)
}

func TestApprovalMatchers(t *testing.T) {
	cfg := scripted.Config{Rules: []scripted.Rule{
		{Kind: lux.Approve, Action: lux.ActionCommand, Command: `^rm `, Approve: new(false), Reason: "never delete"},
		{Kind: lux.Approve, Action: lux.ActionEdit, Path: `\.env$`, Approve: new(false), Reason: "no secrets"},
		{Kind: lux.Approve, Tool: "Write", Approve: new(true)},
	}}
	tests := []struct {
		name    string
		request any
		want    *bool
	}{
		{"command denied", &lux.Approval{Action: lux.ActionCommand, Tool: "Bash", Command: "rm -rf data"}, new(false)},
		{"edit of a secret denied, as read back from a record", map[string]any{"action": "edit", "tool": "file_change", "paths": []any{"a.go", ".env"}}, new(false)},
		{"write approved by tool", &lux.Approval{Action: lux.ActionEdit, Tool: "Write", Paths: []string{"a.go"}}, new(true)},
		{"nothing matches", &lux.Approval{Action: lux.ActionCommand, Tool: "Bash", Command: "ls"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := answerWith(t, cfg, lux.Interrupt{Kind: lux.Approve, ID: "x", Request: tt.request})
			if tt.want == nil {
				require.True(t, errors.Is(err, lux.ErrUnanswered), "%v", err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, *tt.want, a.Approved)
		})
	}
	_, err := scripted.New(scripted.Config{Rules: []scripted.Rule{{Answer: "x", Command: "rm"}, {Kind: lux.Approve, Action: "delete", Approve: new(true)}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rules[0]: action, tool, command and path match approvals only")
	assert.Contains(t, err.Error(), `rules[1].action: unknown action "delete"`)
}

func TestQuestionsAnsweredOneByOne(t *testing.T) {
	in := lux.Interrupt{Kind: lux.Ask, ID: "ask-1", Question: "Which colour?\nWhich size?",
		Questions: []lux.Question{{ID: "colour", Text: "Which colour?"}, {ID: "q2", Text: "Which size?"}}}
	cfg := scripted.Config{Rules: []scripted.Rule{
		{Match: "(?i)colour", Answer: "Blue"},
		{ID: "q2", Answer: "Large"},
	}}
	a, err := answerWith(t, cfg, in)
	require.NoError(t, err)
	assert.Equal(t, lux.Answer{Kind: lux.Ask, ID: "ask-1", Answers: map[string]string{"colour": "Blue", "q2": "Large"}}, a)
	assert.Equal(t, "Large", a.AnswerFor("q2"))

	cfg.Rules = cfg.Rules[:1]
	_, err = answerWith(t, cfg, in)
	require.ErrorIs(t, err, lux.ErrUnanswered)
	assert.Contains(t, err.Error(), "Which size?")

	cfg.Rules = append(cfg.Rules, scripted.Otherwise(scripted.Rule{Kind: lux.Ask, Answer: "any"}))
	a, err = answerWith(t, cfg, in)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"colour": "Blue", "q2": "any"}, a.Answers)
}
