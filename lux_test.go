package lux_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/digest"
)

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

type sampleConfig struct {
	Command     string            `json:"command"`
	IdleTimeout lux.Duration      `json:"idleTimeout"`
	Env         map[string]string `json:"env"`
	Limits      struct {
		MaxLines int `json:"maxLines"`
	} `json:"limits"`
	Rules []struct {
		Match string `json:"match"`
	} `json:"rules"`
}

func TestDecodeConfig(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string
	}{
		{name: "empty keeps defaults", raw: ``},
		{name: "null keeps defaults", raw: `null`},
		{name: "valid", raw: `{"command":"x","idleTimeout":"90s","limits":{"maxLines":3},"rules":[{"match":"a"}]}`},
		{
			name: "every unknown field, nested ones too",
			raw:  `{"comand":"x","limits":{"maxLine":3},"rules":[{"match":"a"},{"mtch":"b"}]}`,
			want: []string{
				`comand: unknown field (did you mean "command"?)`,
				`limits.maxLine: unknown field (did you mean "maxLines"?)`,
				`rules[1].mtch: unknown field (did you mean "match"?)`,
			},
		},
		{
			name: "every wrong type",
			raw:  `{"command":1,"idleTimeout":"soon","env":[]}`,
			want: []string{
				"command: must be a string, got number",
				"env: must be an object, got array",
				`idleTimeout: must be a duration such as "90s" or a number of milliseconds, got "soon"`,
			},
		},
		{
			name: "unknown fields and wrong types together",
			raw:  `{"comand":"x","command":1}`,
			want: []string{
				"comand: unknown field (did you mean \"command\"?)",
				"command: must be a string, got number",
			},
		},
		{
			name: "nested wrong types named by their path",
			raw:  `{"limits":{"maxLines":"3"},"rules":[{"match":"a"},{"match":2}],"env":{"A":"x","B":true}}`,
			want: []string{
				"env.B: must be a string, got bool",
				"limits.maxLines: must be a whole number, got string",
				"rules[1].match: must be a string, got number",
			},
		},
		{
			name: "broken JSON says where",
			raw:  "{\n  \"command\": \"x\",\n}",
			want: []string{"not valid JSON at line 3, column 1: invalid character '}' looking for beginning of object key string"},
		},
		{name: "not an object", raw: `"x"`, want: []string{"must be a JSON object, got a string"}},
		{name: "not JSON", raw: `{`, want: []string{"not valid JSON: unexpected end of JSON input"}},
		{name: "trailing data says where", raw: `{} x`, want: []string{"not valid JSON at line 1, column 4: invalid character 'x' after top-level value"}},
		{
			name: "a second object after the first",
			raw:  "{\"command\": \"x\"}\n\n{\"command\": \"y\"}\n",
			want: []string{"not valid JSON at line 3, column 1: invalid character '{' after top-level value"},
		},
		{
			name: "a number beyond float64 is valid JSON of the wrong size",
			raw:  `{"command":"x","limits":{"maxLines":1e400}}`,
			want: []string{"limits.maxLines: must be a whole number, got number 1e400"},
		},
		{
			name: "a duration beyond time.Duration",
			raw:  `{"idleTimeout":1e300}`,
			want: []string{"idleTimeout: must be at most 2562047h47m16.854775807s, got 1e300 milliseconds"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := sampleConfig{Command: "default"}
			err := lux.DecodeConfig(json.RawMessage(tt.raw), &cfg)
			if diff := cmp.Diff(tt.want, problems(err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if tt.want != nil && !errors.Is(err, lux.ErrInvalidConfig) {
				t.Errorf("%v does not wrap ErrInvalidConfig", err)
			}
			if tt.want == nil && tt.raw == "" && cfg.Command != "default" {
				t.Errorf("defaults lost: %+v", cfg)
			}
		})
	}
}

func TestDurationJSON(t *testing.T) {
	var d lux.Duration
	require.NoError(t, json.Unmarshal([]byte(`1500`), &d))
	require.Equal(t, 1500*time.Millisecond, d.D())
	require.NoError(t, json.Unmarshal([]byte(`"2m"`), &d))
	require.Equal(t, 2*time.Minute, d.D())
	b, err := json.Marshal(d)
	require.NoError(t, err)
	require.Equal(t, `"2m0s"`, string(b))
}

func TestProblemsMergePrefixesPaths(t *testing.T) {
	var inner lux.Problems
	inner.Add("idleTimeout", "must be positive")
	inner.AddFix("command", "required", "name the agent executable")
	var outer lux.Problems
	outer.Merge("driver.config", inner.Err(lux.ErrInvalidConfig))
	outer.Merge("assertions[2]", errors.New("boom"))
	err := outer.Err(lux.ErrInvalidCase)
	want := []string{
		"driver.config.idleTimeout: must be positive",
		"driver.config.command: required (name the agent executable)",
		"assertions[2]: boom",
	}
	if diff := cmp.Diff(want, problems(err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	require.True(t, errors.Is(err, lux.ErrInvalidCase))
	require.Equal(t, "lux: invalid case:\n  - "+strings.Join(want, "\n  - "), err.Error())
}

func stubDriver(name string, caps ...lux.Capability) *lux.DriverPlugin {
	return &lux.DriverPlugin{
		Name: name,
		Doc:  "a stub that starts nothing",
		Parse: func(json.RawMessage) (lux.DriverConfig, error) {
			return stubConfig{caps: caps}, nil
		},
	}
}

type stubConfig struct{ caps []lux.Capability }

func (c stubConfig) Runtime() lux.Runtime { return lux.Runtime{Capabilities: c.caps} }
func (stubConfig) Start(context.Context, lux.StartInfo) (lux.Session, error) {
	return nil, errors.New("not startable")
}

func TestRegistry(t *testing.T) {
	r := lux.NewRegistry()
	require.NoError(t, r.RegisterDriver(stubDriver("b")))
	require.NoError(t, r.RegisterDriver(stubDriver("a")))
	err := r.RegisterDriver(stubDriver("a"))
	require.ErrorIs(t, err, lux.ErrDuplicatePlugin)
	require.EqualError(t, err, `lux: plugin already registered: driver "a"`)

	_, err = r.Driver("c")
	require.ErrorIs(t, err, lux.ErrUnknownPlugin)
	require.EqualError(t, err, `lux: unknown plugin: driver "c" (known: a, b)`)
	var unknown *lux.UnknownPluginError
	require.ErrorAs(t, err, &unknown)
	require.Equal(t, &lux.UnknownPluginError{Kind: "driver", Name: "c", Known: []string{"a", "b"}}, unknown)
	require.Equal(t, `unknown plugin: driver "c" (known: a, b)`, unknown.Problem())
	_, err = r.Answerer("x")
	require.EqualError(t, err, `lux: unknown plugin: answerer "x" (none are registered)`)

	p, err := r.Driver("b")
	require.NoError(t, err)
	require.Equal(t, "b", p.Name)
	require.Equal(t, []string{"a", "b"}, r.Drivers())

	bad := stubDriver("x")
	bad.Experiment = &lux.DriverExperiment{Version: " "}
	require.Error(t, r.RegisterDriver(bad))
	require.Error(t, r.RegisterAssertion(&lux.AssertionPlugin{Type: "t"}), "no Parse")
}

func TestRegistryRefusesAPluginWithoutDoc(t *testing.T) {
	r := lux.NewRegistry()
	undocumented := stubDriver("quiet")
	undocumented.Doc = "  "
	require.EqualError(t, r.RegisterDriver(undocumented),
		`lux: driver plugin "quiet" has no Doc: set Doc to a sentence saying what it does (lux plugins shows it)`)
	require.Empty(t, r.Drivers(), "an undocumented driver is not registered")

	answer := func(json.RawMessage) (lux.AnswererConfig, error) { return nil, nil }
	require.EqualError(t, r.RegisterAnswerer(&lux.AnswererPlugin{Name: "a", Parse: answer}),
		`lux: answerer plugin "a" has no Doc: set Doc to a sentence saying what it does (lux plugins shows it)`)
	check := func(json.RawMessage) (lux.Check, error) { return nil, nil }
	require.EqualError(t, r.RegisterAssertion(&lux.AssertionPlugin{Type: "t", Parse: check}),
		`lux: assertion plugin "t" has no Doc: set Doc to a sentence saying what it does (lux plugins shows it)`)

	require.NoError(t, r.RegisterAnswerer(&lux.AnswererPlugin{Name: "a", Doc: "answers nothing", Parse: answer}))
	require.NoError(t, r.RegisterAssertion(&lux.AssertionPlugin{Type: "t", Doc: "checks nothing", Parse: check}))
}

func TestEventJSONRoundTrip(t *testing.T) {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cost := 0.25
	events := []lux.Event{
		{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "a", Model: "m", Detail: map[string]any{"sessionId": "s"}}},
		{Type: lux.EventProgress, Time: ts, Progress: &lux.Progress{ID: "am-1", Kind: lux.KindAgentMessage, Message: &lux.Message{Text: "hi"}}},
		{Type: lux.EventProgress, Time: ts, Progress: &lux.Progress{ID: "tc-1", Kind: lux.KindToolCall, ToolCall: &lux.ToolCall{Name: "Write", Input: map[string]any{"path": "x"}, ToolUseID: "t1"}}},
		{Type: lux.EventProgress, Time: ts, Progress: &lux.Progress{ID: "tr-1", Kind: lux.KindToolResult, ToolResult: &lux.ToolResult{Name: "Write", ToolUseID: "t1", Content: "ok", Text: "ok"}}},
		{Type: lux.EventProgress, Time: ts, Progress: &lux.Progress{ID: "u-1", Kind: lux.KindUsage, Usage: &lux.UsageReport{TokenUsage: lux.TokenUsage{Input: 3, Output: 4}, Label: "turn 1"}}},
		{Type: lux.EventProgress, Time: ts, Progress: &lux.Progress{ID: "x", Kind: "mcp-init", Payload: json.RawMessage(`{"serverInfo":{"name":"s"}}`)}},
		{Type: lux.EventInterrupt, Time: ts, Interrupt: &lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "color?", Context: map[string]any{"options": []any{"red"}}}},
		{Type: lux.EventResponded, Time: ts, Answer: &lux.Answer{Kind: lux.Ask, ID: "q1", Text: "red"}},
		{Type: lux.EventInterrupt, Time: ts, Interrupt: &lux.Interrupt{Kind: lux.Approve, ID: "p1", Request: map[string]any{"tool": "Bash"}}},
		{Type: lux.EventResponded, Time: ts, Answer: &lux.Answer{Kind: lux.Approve, ID: "p1", Approved: false, Reason: "no"}},
		{Type: lux.EventInterrupt, Time: ts, Interrupt: &lux.Interrupt{Kind: lux.Custom, ID: "c1", Payload: map[string]any{"k": "v"}}},
		{Type: lux.EventResponded, Time: ts, Answer: &lux.Answer{Kind: lux.Custom, ID: "c1", Payload: map[string]any{"ok": true}}},
		{Type: lux.EventDone, Time: ts, Done: &lux.Done{Usage: &lux.TokenUsage{Input: 10, Output: 5}, CostUSD: &cost, Turns: 2}},
		{Type: lux.EventError, Time: ts, Error: &lux.ErrorEvent{ExitReason: lux.ExitIdleTimeout, Reason: "no event for 2m0s"}},
		{Type: lux.EventLifecycle, Time: ts, Stage: lux.StageCollectStart},
	}
	for _, e := range events {
		b := mustJSON(t, e)
		var got lux.Event
		require.NoError(t, json.Unmarshal(b, &got), string(b))
		if diff := cmp.Diff(e, got); diff != "" {
			t.Errorf("round trip of %s (-want +got):\n%s", b, diff)
		}
	}
	// The flat layout of the lux-jsonl protocol.
	require.JSONEq(t, `{"type":"responded","ts":"2026-01-02T03:04:05Z","kind":"approve","id":"p1","approved":false,"reason":"no"}`, string(mustJSON(t, events[9])))
}

func TestEventReadToleratesUnknownFieldsAndBadPayloads(t *testing.T) {
	var e lux.Event
	require.NoError(t, json.Unmarshal([]byte(`{"type":"progress","kind":"tool-call","id":"x","payload":"not an object","future":1}`), &e))
	require.Nil(t, e.Progress.ToolCall)
	require.JSONEq(t, `"not an object"`, string(e.Progress.Payload))
	require.NoError(t, json.Unmarshal([]byte(`{"type":"checkpoint","ts":"2026-01-02T03:04:05Z","state":{}}`), &e), "a newer version's event type")
	require.Equal(t, lux.EventType("checkpoint"), e.Type)
	require.False(t, e.Time.IsZero())
	require.False(t, e.Terminal())
	require.Error(t, json.Unmarshal([]byte(`{"ts":"2026-01-02T03:04:05Z"}`), &e), "no type")
}

func TestAnswerMatches(t *testing.T) {
	in := lux.Interrupt{Kind: lux.Ask, ID: "q1"}
	require.NoError(t, lux.Answer{Kind: lux.Ask, ID: "q1"}.Matches(in))
	err := lux.Answer{Kind: lux.Approve, ID: "q1"}.Matches(in)
	require.ErrorIs(t, err, lux.ErrAnswerMismatch)
}

func TestUsageAvailability(t *testing.T) {
	var u lux.Usage
	require.False(t, u.AgentAvailable(), "no report is unavailable, not zero")
	u.Agent = &lux.TokenUsage{}
	require.True(t, u.AgentAvailable(), "a report of zero is available")
	u.Answerer = lux.ModelUsage{TokenUsage: lux.TokenUsage{Input: 1}}
	u.Judge = lux.ModelUsage{TokenUsage: lux.TokenUsage{Output: 2}}
	require.Equal(t, int64(3), u.Harness().Total())
}

func TestHashValueIsCanonical(t *testing.T) {
	a, err := digest.Value(map[string]any{"b": 1, "a": []any{"x", 2.5}})
	require.NoError(t, err)
	b, err := digest.Value(json.RawMessage(`{ "a": ["x", 2.5], "b": 1 }`))
	require.NoError(t, err)
	require.Equal(t, a, b)
	c, err := digest.Value(map[string]any{"a": []any{2.5, "x"}, "b": 1})
	require.NoError(t, err)
	require.NotEqual(t, a, c)
}

func TestInterruptTextIsNotHTMLEscaped(t *testing.T) {
	in := lux.Interrupt{Kind: lux.Approve, ID: "p", Request: map[string]any{"command": "echo hi > out.txt && cat <in"}}
	require.Equal(t, `{"command":"echo hi > out.txt && cat <in"}`, in.Text())
	require.Equal(t, "why?", lux.Interrupt{Kind: lux.Ask, Question: "why?"}.Text())
}

func TestReadyVersion(t *testing.T) {
	r := lux.NewReady("claude-code", "2.1.328 (Claude Code)", "m", nil)
	assert.Equal(t, "2.1.328", r.AgentVersion)
	assert.Equal(t, "2.1.328 (Claude Code)", r.AgentVersionRaw)
	r.SetVersion("0.169.0")
	assert.Equal(t, "0.169.0", r.AgentVersion)
	assert.Empty(t, r.AgentVersionRaw)
	r.SetVersion("nightly")
	assert.Equal(t, "nightly", r.AgentVersion, "a version without a release number is kept as given")
}
