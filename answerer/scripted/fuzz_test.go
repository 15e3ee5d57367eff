package scripted_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/scripted"
)

var fuzzInterrupts = []lux.Interrupt{
	{Kind: lux.Ask, ID: "q1", Question: "Which database?"},
	{Kind: lux.Ask, ID: "q2", Question: ""},
	{Kind: lux.Approve, ID: "a1", Request: map[string]any{"tool": "Bash", "command": "rm -rf / > x"}},
	{Kind: lux.Approve, ID: "a2"},
	{Kind: lux.Custom, ID: "c1", Payload: map[string]any{"type": "lux.conversation-turn.v1"}},
	{Kind: "other", ID: "o1", Payload: 1},
}

// A config either parses or is refused with ErrInvalidConfig; an answerer
// either answers an interrupt with its kind and id or refuses it quoting
// its text.
func FuzzParseAndAnswer(f *testing.F) {
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `{"rules":[]}`, `{"rules":null}`, `{"rules":[null]}`, `{"rules":[{}]}`,
		script,
		`{"rules":[{"match":"(?i)database","answer":"pg"},{"default":true,"approve":true},{"kind":"custom","payload":null}]}`,
		`{"rules":[{"kind":"custom","default":true,"payload":{"action":"stop"}},{"id":"q2","answer":"-"}]}`,
		`{"rules":[{"match":"[","answer":"x"},{"kind":"approve","reason":"r","approve":false,"match":"rm"}]}`,
		`{"rules":[{"default":true,"answer":"a"},{"default":true,"answer":"b"}]}`,
		`{"file":"/nonexistent"}`, `{"rules":[{"answer":"x","approve":true,"payload":1}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		cfg, err := scripted.Plugin().Parse(json.RawMessage(raw))
		if err != nil {
			if !errors.Is(err, lux.ErrInvalidConfig) {
				t.Fatalf("Parse(%s) = %v, not wrapping ErrInvalidConfig", raw, err)
			}
			return
		}
		if _, err := json.Marshal(cfg); err != nil {
			t.Fatalf("config does not encode: %v", err)
		}
		a, err := cfg.Prepare(context.Background(), lux.AnswererInfo{})
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range fuzzInterrupts {
			got, err := a.Answer(context.Background(), in, nil)
			if err != nil {
				if !errors.Is(err, lux.ErrUnanswered) || !strings.Contains(err.Error(), in.ID) {
					t.Fatalf("Answer(%+v) = %v", in, err)
				}
				continue
			}
			if err := got.Matches(in); err != nil {
				t.Fatalf("Answer(%+v) = %+v: %v", in, got, err)
			}
		}
	})
}

// Rules are tried in order and defaults only after every other rule,
// wherever they stand; a rule never answers another kind.
func TestRuleOrderAndDefaults(t *testing.T) {
	a := prepare(t, `{"rules":[
		{"default":true,"answer":"default ask"},
		{"kind":"approve","default":true,"approve":true},
		{"match":"data","answer":"first"},
		{"match":"database","answer":"second"},
		{"id":"q9","answer":"by id"},
		{"kind":"approve","id":"a9","approve":false,"reason":"by id"},
		{"kind":"custom","match":"^\\{\"n\":1\\}$","payload":[1,2]}
	]}`)
	tests := []struct {
		name string
		in   lux.Interrupt
		want lux.Answer
	}{
		{"first match wins over a later, closer one", lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "which database?"},
			lux.Answer{Kind: lux.Ask, ID: "q1", Text: "first"}},
		{"a default placed first still comes last", lux.Interrupt{Kind: lux.Ask, ID: "q9", Question: "name?"},
			lux.Answer{Kind: lux.Ask, ID: "q9", Text: "by id"}},
		{"default of the kind", lux.Interrupt{Kind: lux.Ask, ID: "q2", Question: "name?"},
			lux.Answer{Kind: lux.Ask, ID: "q2", Text: "default ask"}},
		{"an ask rule's id does not answer an approve", lux.Interrupt{Kind: lux.Approve, ID: "q9", Request: "x"},
			lux.Answer{Kind: lux.Approve, ID: "q9", Approved: true}},
		{"denial by id", lux.Interrupt{Kind: lux.Approve, ID: "a9", Request: "x"},
			lux.Answer{Kind: lux.Approve, ID: "a9", Approved: false, Reason: "by id"}},
		{"custom payload as JSON text", lux.Interrupt{Kind: lux.Custom, ID: "c1", Payload: map[string]any{"n": 1}},
			lux.Answer{Kind: lux.Custom, ID: "c1", Payload: []any{1.0, 2.0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := a.Answer(context.Background(), tt.in, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Kind != tt.want.Kind || got.ID != tt.want.ID || got.Text != tt.want.Text ||
				got.Approved != tt.want.Approved || got.Reason != tt.want.Reason {
				t.Errorf("Answer = %+v, want %+v", got, tt.want)
			}
			if tt.want.Payload != nil {
				gb, _ := json.Marshal(got.Payload)
				wb, _ := json.Marshal(tt.want.Payload)
				if string(gb) != string(wb) {
					t.Errorf("Payload = %s, want %s", gb, wb)
				}
			}
		})
	}
	// No custom default: an unmatched custom interrupt fails the run,
	// quoting its payload.
	_, err := a.Answer(context.Background(), lux.Interrupt{Kind: lux.Custom, ID: "c2", Payload: map[string]any{"n": 2}}, nil)
	if want := `scripted: no rule answers custom interrupt "c2"; the payload was "{\"n\":2}"`; err == nil || err.Error() != want {
		t.Errorf("Answer = %v, want %q", err, want)
	}
}

// An unmatched question is quoted in full up to 500 characters, and
// shortened after.
func TestUnansweredQuotesLongQuestions(t *testing.T) {
	a := prepare(t, `{"rules":[{"kind":"approve","default":true,"approve":true}]}`)
	q := strings.Repeat("é", 600)
	_, err := a.Answer(context.Background(), lux.Interrupt{Kind: lux.Ask, ID: "q", Question: q}, nil)
	want := `scripted: no rule answers ask interrupt "q"; the question was "` + strings.Repeat("é", 500) + `…"`
	if err == nil || err.Error() != want {
		t.Errorf("Answer = %v", err)
	}
}
