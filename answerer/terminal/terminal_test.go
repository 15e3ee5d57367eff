package terminal_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/terminal"
	"github.com/luxeval/lux/luxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func plugin(input string, out *bytes.Buffer, tty bool) *lux.AnswererPlugin {
	return terminal.PluginWith(terminal.Options{In: strings.NewReader(input), Out: out, IsTTY: func() bool { return tty }})
}

func TestConformance(t *testing.T) {
	var out bytes.Buffer
	luxtest.TestAnswerer(t, plugin("PostgreSQL\n2\ny\nno\nnot now\n{bad\n{\"pick\":\"a\"}\n", &out, true), json.RawMessage(`{}`),
		lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "Which database?"},
		lux.Interrupt{Kind: lux.Ask, ID: "q2", Question: "Tabs or spaces?", Questions: []lux.Question{
			{ID: "q1", Text: "Tabs or spaces?", Options: []lux.Option{{Label: "tabs"}, {Label: "spaces"}}},
		}},
		lux.Interrupt{Kind: lux.Approve, ID: "a1", Request: map[string]any{"command": "go test ./..."}},
		lux.Interrupt{Kind: lux.Approve, ID: "a2", Request: map[string]any{"command": "rm -rf /"}},
		lux.Interrupt{Kind: lux.Custom, ID: "c1", Payload: map[string]any{"choose": "a or b"}},
	)
}

func TestAnswers(t *testing.T) {
	var out bytes.Buffer
	p := plugin("PostgreSQL\n2\nyes\nn\nnot now\n{bad\n{\"pick\":\"a\"}\n", &out, true)
	cfg, err := p.Parse(nil)
	require.NoError(t, err)
	a, err := cfg.Prepare(t.Context(), lux.AnswererInfo{CaseID: "c"})
	require.NoError(t, err)
	ans := func(in lux.Interrupt) lux.Answer {
		t.Helper()
		got, err := a.Answer(t.Context(), in, nil)
		require.NoError(t, err)
		return got
	}
	assert.Equal(t, "PostgreSQL", ans(lux.Interrupt{Kind: lux.Ask, ID: "q", Question: "Which database?"}).Text)
	assert.Equal(t, "spaces", ans(lux.Interrupt{Kind: lux.Ask, ID: "q", Questions: []lux.Question{
		{ID: "q1", Text: "Tabs or spaces?", Options: []lux.Option{{Label: "tabs"}, {Label: "spaces"}}}}}).Text)
	assert.True(t, ans(lux.Interrupt{Kind: lux.Approve, ID: "a"}).Approved)
	denied := ans(lux.Interrupt{Kind: lux.Approve, ID: "a"})
	assert.False(t, denied.Approved)
	assert.Equal(t, "not now", denied.Reason)
	assert.Equal(t, map[string]any{"pick": "a"}, ans(lux.Interrupt{Kind: lux.Custom, ID: "c"}).Payload)
	assert.Contains(t, out.String(), "2. spaces")
	assert.Contains(t, out.String(), "[y/N]")
	assert.Contains(t, out.String(), "not valid JSON")
	_, err = a.Answer(t.Context(), lux.Interrupt{Kind: lux.Ask, ID: "q", Question: "more?"}, nil)
	assert.ErrorContains(t, err, "input ended")
}

func TestRefusesWithoutTerminal(t *testing.T) {
	var out bytes.Buffer
	cfg, err := plugin("", &out, false).Parse(nil)
	require.NoError(t, err)
	_, err = cfg.Prepare(t.Context(), lux.AnswererInfo{})
	assert.True(t, errors.Is(err, terminal.ErrNoTerminal))
	assert.ErrorContains(t, err, "-interactive")
}
