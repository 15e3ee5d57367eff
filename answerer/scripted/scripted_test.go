package scripted_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/scripted"
	"github.com/luxeval/lux/internal/digest"
)

func prepare(t *testing.T, cfg string) lux.Answerer {
	t.Helper()
	c, err := scripted.Plugin().Parse(json.RawMessage(cfg))
	if err != nil {
		t.Fatalf("Parse(%s): %v", cfg, err)
	}
	a, err := c.Prepare(context.Background(), lux.AnswererInfo{CaseID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

const script = `{"rules": [
	{"match": "(?i)which database", "answer": "PostgreSQL"},
	{"id": "q-name", "answer": "lux"},
	{"kind": "ask", "match": "^Proceed\\?$", "answer": "yes"},
	{"kind": "approve", "match": "rm -rf", "approve": false, "reason": "never delete"},
	{"kind": "approve", "match": "\"tool\":\"Bash\"", "approve": true},
	{"match": "conversation-turn", "payload": {"action": "stop"}},
	{"kind": "approve", "default": true, "approve": false, "reason": "not in the script"},
	{"default": true, "answer": "I have no preference."}
]}`

func TestAnswer(t *testing.T) {
	a := prepare(t, script)
	tests := []struct {
		name string
		in   lux.Interrupt
		want lux.Answer
	}{
		{"regex ignoring case", lux.Interrupt{Kind: lux.Ask, ID: "1", Question: "Which DATABASE should I use?"},
			lux.Answer{Kind: lux.Ask, ID: "1", Text: "PostgreSQL"}},
		{"id match", lux.Interrupt{Kind: lux.Ask, ID: "q-name", Question: "What should the package be called?"},
			lux.Answer{Kind: lux.Ask, ID: "q-name", Text: "lux"}},
		{"first match wins", lux.Interrupt{Kind: lux.Ask, ID: "q-name", Question: "Which database?"},
			lux.Answer{Kind: lux.Ask, ID: "q-name", Text: "PostgreSQL"}},
		{"anchored", lux.Interrupt{Kind: lux.Ask, ID: "2", Question: "Proceed?"},
			lux.Answer{Kind: lux.Ask, ID: "2", Text: "yes"}},
		{"ask default", lux.Interrupt{Kind: lux.Ask, ID: "3", Question: "Proceed? Really?"},
			lux.Answer{Kind: lux.Ask, ID: "3", Text: "I have no preference."}},
		{"denial with reason", lux.Interrupt{Kind: lux.Approve, ID: "4", Request: map[string]any{"tool": "Bash", "command": "rm -rf /"}},
			lux.Answer{Kind: lux.Approve, ID: "4", Approved: false, Reason: "never delete"}},
		{"approval over request JSON", lux.Interrupt{Kind: lux.Approve, ID: "5", Request: map[string]any{"tool": "Bash", "command": "go test"}},
			lux.Answer{Kind: lux.Approve, ID: "5", Approved: true}},
		{"approve default", lux.Interrupt{Kind: lux.Approve, ID: "6", Request: "write /etc/hosts"},
			lux.Answer{Kind: lux.Approve, ID: "6", Approved: false, Reason: "not in the script"}},
		{"custom payload", lux.Interrupt{Kind: lux.Custom, ID: "7", Payload: map[string]any{"type": "lux.conversation-turn.v1", "message": "hi"}},
			lux.Answer{Kind: lux.Custom, ID: "7", Payload: map[string]any{"action": "stop"}}},
		{"ask rule never answers approve", lux.Interrupt{Kind: lux.Approve, ID: "8", Request: "Which database?"},
			lux.Answer{Kind: lux.Approve, ID: "8", Approved: false, Reason: "not in the script"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := a.Answer(context.Background(), tt.in, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Answer (-want +got):\n%s", diff)
			}
			if err := got.Matches(tt.in); err != nil {
				t.Error(err)
			}
		})
	}
	if u := a.Usage(); !u.IsZero() {
		t.Errorf("Usage = %+v, want zero", u)
	}
}

func TestUnanswered(t *testing.T) {
	a := prepare(t, `{"rules":[{"match":"database","answer":"PostgreSQL"},{"kind":"approve","match":"ls","approve":true}]}`)
	tests := []struct {
		in   lux.Interrupt
		want string
	}{
		{lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "Which framework should I use?"},
			`scripted: no rule answers ask interrupt "q1"; the question was "Which framework should I use?"`},
		{lux.Interrupt{Kind: lux.Approve, ID: "a1", Request: map[string]any{"command": "rm x"}},
			`scripted: no rule answers approve interrupt "a1"; the request was "{\"command\":\"rm x\"}"`},
		{lux.Interrupt{Kind: lux.Custom, ID: "c1", Payload: 42},
			`scripted: no rule answers custom interrupt "c1"; the payload was "42"`},
	}
	for _, tt := range tests {
		_, err := a.Answer(context.Background(), tt.in, nil)
		if !errors.Is(err, lux.ErrUnanswered) {
			t.Errorf("Answer(%v) = %v, want ErrUnanswered", tt.in, err)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("error = %q\nwant    %q", err, tt.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := a.Answer(ctx, lux.Interrupt{Kind: lux.Ask, ID: "q", Question: "database?"}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Answer with a cancelled context = %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  string
		want []string
	}{
		{"empty", `{}`, []string{`rules: required (give at least one rule, inline or in a file)`}},
		{"approve on an ask rule", `{"rules":[{"answer":"a"},{"answer":"b"},{"kind":"ask","match":"x","approve":true}]}`,
			[]string{`rules[2].approve: answers approve interrupts, but the rule is for ask ones (an ask rule gives "answer": "text")`}},
		{"answer on an approve rule", `{"rules":[{"kind":"approve","answer":"ok"}]}`,
			[]string{`rules[0].answer: answers ask interrupts, but the rule is for approve ones (an approve rule gives "approve": true or false, and an optional "reason")`}},
		{"payload on an ask rule", `{"rules":[{"kind":"ask","payload":{}}]}`,
			[]string{`rules[0].payload: answers custom interrupts, but the rule is for ask ones (an ask rule gives "answer": "text")`}},
		{"two bodies", `{"rules":[{"answer":"x","approve":true}]}`,
			[]string{`rules[0]: has both "answer" and "approve"; a rule gives one answer (give "answer" for ask, "approve" for approve, or "payload" for custom)`}},
		{"no body", `{"rules":[{"kind":"custom","match":"x"}]}`,
			[]string{`rules[0]: has no answer (a custom rule gives "payload": any JSON value)`}},
		{"every problem at once", `{"rules":[{"match":"(","answer":"x"},{"kind":"bogus","answer":"x"},{"reason":"r","answer":"x"},{"default":true,"match":"a","answer":"y"}]}`,
			[]string{
				"rules[0].match: not a valid regular expression: missing closing ): `(` (use Go RE2 syntax, without backreferences or lookaround; start with (?i) to ignore case)",
				`rules[1].kind: must be "ask", "approve" or "custom", got "bogus" (or leave it out: the answer decides the kind)`,
				`rules[2].reason: only an approve rule has a reason (give "approve": false or true with it, or remove it)`,
				`rules[3].default: a default rule answers every interrupt of its kind (remove "match", "id" and the approval matchers, or "default")`,
			}},
		{"lookahead", `{"rules":[{"match":"a(?!b)","answer":"x"}]}`,
			[]string{"rules[0].match: not a valid regular expression: invalid or unsupported Perl syntax: `(?!` (use Go RE2 syntax, without backreferences or lookaround; start with (?i) to ignore case)"}},
		{"two defaults", `{"rules":[{"default":true,"answer":"y"},{"kind":"approve","default":true,"approve":true},{"default":true,"answer":"z"}]}`,
			[]string{`rules[2].default: second default rule for ask interrupts (rules[0] is one) (keep one)`}},
		{"strict rules", `{"rules":[{"answr":"y"}, null, "x", {"approve":"yes"}]}`, []string{
			`rules[0].answr: unknown field (did you mean "answer"?)`,
			`rules[0]: has no answer (give "answer" for ask, "approve" for approve, or "payload" for custom)`,
			`rules[1]: must be a rule object, got null`,
			`rules[2]: must be a JSON object, got a string`,
			`rules[3].approve: must be true or false, got string`,
		}},
		{"unknown top-level field", `{"rule":[]}`, []string{
			`rule: unknown field (did you mean "rules"?)`,
			`rules: required (give at least one rule, inline or in a file)`}},
		{"a typo hides no other problem", `{"rules":[{"match":"(","anwser":"blue"}],"fiel":"x"}`, []string{
			`fiel: unknown field (did you mean "file"?)`,
			`rules[0].anwser: unknown field (did you mean "answer"?)`,
			`rules[0]: has no answer (give "answer" for ask, "approve" for approve, or "payload" for custom)`,
			"rules[0].match: not a valid regular expression: missing closing ): `(` (use Go RE2 syntax, without backreferences or lookaround; start with (?i) to ignore case)"}},
		{"rules not a list", `{"rules":"x"}`, []string{`rules: must be a list, got string`}},
		{"missing file", `{"file":"/nonexistent/answers.json"}`, []string{
			`file: cannot read "/nonexistent/answers.json": no such file or directory (give a JSON file of rules; a relative path is relative to the working directory)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scripted.Plugin().Parse(json.RawMessage(tt.cfg))
			checkProblems(t, err, tt.want)
		})
	}
}

func checkProblems(t *testing.T, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Fatal("Parse succeeded, want an error")
	}
	if !errors.Is(err, lux.ErrInvalidConfig) {
		t.Errorf("%v does not wrap lux.ErrInvalidConfig", err)
	}
	var got []string
	for _, e := range lux.ProblemsOf(err) {
		got = append(got, e.Error())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	list := write("list.json", `[{"match":"database","answer":"from the file"},{"default":true,"answer":"file default"}]`)
	obj := write("obj.json", `{"rules":[{"kind":"approve","default":true,"approve":true}]}`)

	// Inline rules come first; the file's follow.
	a := prepare(t, `{"rules":[{"match":"database","answer":"inline"}],"file":`+quote(list)+`}`)
	for q, want := range map[string]string{"Which database?": "inline", "Anything else?": "file default"} {
		got, err := a.Answer(context.Background(), lux.Interrupt{Kind: lux.Ask, ID: "q", Question: q}, nil)
		if err != nil || got.Text != want {
			t.Errorf("Answer(%q) = %q, %v; want %q", q, got.Text, err, want)
		}
	}
	a = prepare(t, `{"file":`+quote(obj)+`}`)
	if got, err := a.Answer(context.Background(), lux.Interrupt{Kind: lux.Approve, ID: "x", Request: "anything"}, nil); err != nil || !got.Approved {
		t.Errorf("object file: %+v, %v", got, err)
	}

	bad := write("bad.json", `{"rules":[{"kind":"ask","approve":true}],"extra":1}`)
	_, err := scripted.Plugin().Parse(json.RawMessage(`{"file":` + quote(bad) + `}`))
	checkProblems(t, err, []string{
		`file(` + bad + `).extra: unknown field (known fields: rules)`,
		`file(` + bad + `).rules[0].approve: answers approve interrupts, but the rule is for ask ones (an ask rule gives "answer": "text")`,
	})

	bad2 := write("bad2.json", `[{"answer":"x"},{"kind":"ask","approve":true}]`)
	_, err = scripted.Plugin().Parse(json.RawMessage(`{"file":` + quote(bad2) + `}`))
	checkProblems(t, err, []string{`file(` + bad2 + `)[1].approve: answers approve interrupts, but the rule is for ask ones (an ask rule gives "answer": "text")`})

	dup := write("dup.json", `{"rules":[{"default":true,"answer":"again"}]}`)
	_, err = scripted.Plugin().Parse(json.RawMessage(`{"rules":[{"default":true,"answer":"y"}],"file":` + quote(dup) + `}`))
	checkProblems(t, err, []string{`file(` + dup + `).rules[0].default: second default rule for ask interrupts (rules[0] is one) (keep one)`})

	broken := write("broken.json", `[{"answer":`)
	_, err = scripted.Plugin().Parse(json.RawMessage(`{"file":` + quote(broken) + `}`))
	if err == nil || !strings.Contains(err.Error(), "file("+broken+"): not valid JSON: unexpected end of JSON input") {
		t.Errorf("broken file: %v", err)
	}
	// A syntax error is placed by line and column in the file as written.
	typo := write("typo.json", "\n[\n  {\"answer\": x}\n]\n")
	_, err = scripted.Plugin().Parse(json.RawMessage(`{"file":` + quote(typo) + `}`))
	checkProblems(t, err, []string{`file(` + typo + `): not valid JSON at line 3, column 14: invalid character 'x' looking for beginning of value`})
}

// The parsed config records the file's rules, so editing the file changes
// the config hash recorded in provenance.
func TestConfigHashFollowsTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rules.json")
	hash := func(content string) string {
		t.Helper()
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := scripted.Plugin().Parse(json.RawMessage(`{"file":` + quote(p) + `}`))
		if err != nil {
			t.Fatal(err)
		}
		h, err := digest.Value(c)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	h1 := hash(`[{"answer":"yes"}]`)
	if h2 := hash(`[{"answer":"no"}]`); h1 == h2 {
		t.Error("config hash did not change with the file")
	}
	if h3 := hash(`[{"answer":"yes"}]`); h1 != h3 {
		t.Error("config hash is not stable")
	}
}

func TestNewAndHelpers(t *testing.T) {
	c, err := scripted.New(scripted.Config{Rules: []scripted.Rule{
		scripted.Reply("(?i)database", "SQLite"),
		scripted.Deny(`rm `, "no deleting"),
		scripted.Approve(`go (test|vet)`),
		scripted.Respond(`turn`, map[string]string{"action": "stop"}),
		scripted.Otherwise(scripted.Reply("ignored", "whatever you think is best")),
	}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.Prepare(context.Background(), lux.AnswererInfo{})
	if err != nil {
		t.Fatal(err)
	}
	ask := func(q string) string {
		got, err := a.Answer(context.Background(), lux.Interrupt{Kind: lux.Ask, ID: "q", Question: q}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return got.Text
	}
	if got := ask("Which Database?"); got != "SQLite" {
		t.Errorf("ask database = %q", got)
	}
	if got := ask("ignored"); got != "whatever you think is best" {
		t.Errorf("ask default = %q", got)
	}
	got, _ := a.Answer(context.Background(), lux.Interrupt{Kind: lux.Approve, ID: "a", Request: "rm go.sum"}, nil)
	if got.Approved || got.Reason != "no deleting" {
		t.Errorf("deny = %+v", got)
	}
	got, _ = a.Answer(context.Background(), lux.Interrupt{Kind: lux.Approve, ID: "a", Request: "go vet ./..."}, nil)
	if !got.Approved {
		t.Errorf("approve = %+v", got)
	}
	got, _ = a.Answer(context.Background(), lux.Interrupt{Kind: lux.Custom, ID: "c", Payload: "turn 3"}, nil)
	if diff := cmp.Diff(any(map[string]any{"action": "stop"}), got.Payload); diff != "" {
		t.Errorf("respond payload (-want +got):\n%s", diff)
	}

	_, err = scripted.New(scripted.Config{Rules: []scripted.Rule{{Kind: lux.Ask, Match: "x", Reason: "why"}}})
	checkProblems(t, err, []string{
		`rules[0]: has no answer (an ask rule gives "answer": "text")`,
		`rules[0].reason: only an approve rule has a reason (give "approve": false or true with it, or remove it)`,
	})
}

func TestRegisteredOnlyOnRequest(t *testing.T) {
	reg := lux.NewRegistry()
	if _, err := reg.Answerer(scripted.Name); !errors.Is(err, lux.ErrUnknownPlugin) {
		t.Fatalf("a new registry knows %q: %v", scripted.Name, err)
	}
	if err := reg.RegisterAnswerer(scripted.Plugin()); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Answerer(scripted.Name); err != nil {
		t.Error(err)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
