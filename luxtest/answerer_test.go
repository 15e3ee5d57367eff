package luxtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/scripted"
	"github.com/luxeval/lux/luxtest"
)

var testInterrupts = []lux.Interrupt{
	{Kind: lux.Ask, ID: "q1", Question: "Which database?"},
	{Kind: lux.Approve, ID: "p1", Request: map[string]any{"tool": "Bash", "command": "rm -rf build"}},
	{Kind: lux.Custom, ID: "c1", Payload: map[string]any{"pick": []string{"a", "b"}}},
}

func TestAnswererScripted(t *testing.T) {
	luxtest.TestAnswerer(t, scripted.Plugin(), json.RawMessage(`{"rules": [
		{"match": "(?i)database", "answer": "PostgreSQL"},
		{"kind": "approve", "default": true, "approve": false, "reason": "not in tests"},
		{"kind": "custom", "default": true, "payload": {"pick": "a"}}
	]}`), testInterrupts...)
}

// TestAnswererCatchesBrokenAnswerers runs the suite against answerers that
// each break one rule.
func TestAnswererCatchesBrokenAnswerers(t *testing.T) {
	tests := []struct {
		breaks string
		want   []string
	}{
		{breaks: "", want: nil},
		{breaks: "lax-parse", want: []string{"parse-unknown-field", "parse-invalid"}},
		{breaks: "wrong-id", want: []string{"answer"}},
		{breaks: "wrong-kind", want: []string{"answer"}},
		{breaks: "unanswered", want: []string{"answer"}},
		{breaks: "edit-history", want: []string{"answer"}},
		{breaks: "negative-usage", want: []string{"usage"}},
		{breaks: "shrinking-usage", want: []string{"usage"}},
		{breaks: "prepare-fails", want: []string{"prepare"}},
		{breaks: "close-fails", want: []string{"close"}},
		{breaks: "no-fields", want: []string{"config-json"}},
	}
	for _, tt := range tests {
		name := tt.breaks
		if name == "" {
			name = "conforming"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg, err := json.Marshal(map[string]any{"breaks": []string{tt.breaks}})
			require.NoError(t, err)
			err = luxtest.CheckAnswerer(t.Context(), fakeAnswerer(tt.breaks), cfg, testInterrupts...)
			if err != nil {
				t.Log(err)
			}
			if diff := cmp.Diff(tt.want, checks(err)); diff != "" {
				t.Errorf("checks reporting problems (-want +got):\n%s\nerror: %v", diff, err)
			}
		})
	}
}

// fakeAnswerer answers every interrupt, breaking its contract as told.
func fakeAnswerer(pluginBreak string) *lux.AnswererPlugin {
	return &lux.AnswererPlugin{
		Name: "fake",
		Doc:  "answers every interrupt the same way",
		Parse: func(raw json.RawMessage) (lux.AnswererConfig, error) {
			c := &fakeAnswererConfig{}
			if pluginBreak == "lax-parse" {
				_ = json.Unmarshal(raw, c)
				return c, nil
			}
			if err := lux.DecodeConfig(raw, c); err != nil {
				return nil, err
			}
			if slices.Contains(c.Breaks, "no-fields") {
				return &hiddenConfig{breaks: c.Breaks}, nil
			}
			return c, nil
		},
	}
}

type fakeAnswererConfig struct {
	Breaks []string `json:"breaks"`
}

func (c *fakeAnswererConfig) Prepare(ctx context.Context, info lux.AnswererInfo) (lux.Answerer, error) {
	if slices.Contains(c.Breaks, "prepare-fails") {
		return nil, errors.New("fake: no persona")
	}
	return &fakeAns{breaks: c.Breaks}, nil
}

// hiddenConfig keeps its settings in unexported fields: it encodes as {}.
type hiddenConfig struct{ breaks []string }

func (c *hiddenConfig) Prepare(ctx context.Context, info lux.AnswererInfo) (lux.Answerer, error) {
	return &fakeAns{breaks: c.breaks}, nil
}

type fakeAns struct {
	breaks []string
	n      int64
}

func (a *fakeAns) has(b string) bool { return slices.Contains(a.breaks, b) }

func (a *fakeAns) Answer(ctx context.Context, in lux.Interrupt, history []lux.Exchange) (lux.Answer, error) {
	a.n++
	if a.has("unanswered") && in.Kind == lux.Custom {
		return lux.Answer{}, lux.ErrUnanswered
	}
	if a.has("edit-history") && len(history) > 0 {
		history[0].Answer.Text = "rewritten"
	}
	out := luxtest.DefaultAnswer(in)
	if a.has("wrong-id") {
		out.ID = "other"
	}
	if a.has("wrong-kind") && in.Kind == lux.Approve {
		out.Kind = lux.Ask
	}
	return out, nil
}

func (a *fakeAns) Usage() lux.ModelUsage {
	switch {
	case a.has("negative-usage"):
		return lux.ModelUsage{TokenUsage: lux.TokenUsage{Input: -1}}
	case a.has("shrinking-usage"):
		return lux.ModelUsage{TokenUsage: lux.TokenUsage{Input: 100 - a.n}}
	}
	return lux.ModelUsage{TokenUsage: lux.TokenUsage{Input: 10 * a.n, Output: a.n}}
}

func (a *fakeAns) Close() error {
	if a.has("close-fails") {
		return errors.New("fake: close failed")
	}
	return nil
}
