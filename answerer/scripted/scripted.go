// Package scripted is an answerer that plays the user from a script: rules
// that match an interrupt (its kind, its id, its text) to a fixed answer. It
// uses no model, so runs with it are deterministic and cost nothing to
// answer; it suits tests, and cases whose questions are known in advance.
//
// Rules are tried in order and the first that matches answers. A rule
// matches an interrupt of its kind when its id (if given) equals the
// interrupt's and its match (if given), a Go regular expression, matches
// the interrupt's text (lux.Interrupt.Text: the question of an ask, the
// request of an approve as JSON, the payload of a custom one). A rule
// marked default answers any interrupt of its kind that no other rule
// matched; there is at most one per kind. An interrupt no rule answers
// fails the run with an error wrapping lux.ErrUnanswered that quotes it.
//
// A rule's body says how it answers and so which kind it is for:
// "answer" (text, for ask), "approve" (true approves, false denies, with an
// optional "reason"; for approve) or "payload" (any JSON, for custom). Its
// "kind" may be left out; when given it must agree with the body.
//
// The plugin is not registered anywhere by default. Add it to a registry
// with reg.RegisterAnswerer(scripted.Plugin()) and refer to it from a case:
//
//	"answerer": {"name": "scripted", "config": {"rules": [
//	  {"match": "(?i)which database", "answer": "PostgreSQL"},
//	  {"kind": "approve", "match": "rm -rf", "approve": false, "reason": "never delete"},
//	  {"kind": "approve", "default": true, "approve": true}
//	]}}
//
// The rules may also live in a JSON file, "file": "answers.json", holding a
// list of rules or {"rules": [...]}; a relative path is relative to the
// working directory of the process. The file is read when the config is
// parsed, and its rules come after the inline ones. The parsed config
// records the rules themselves, so a changed file changes the answerer's
// config hash in every run's provenance.
package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/luxeval/lux"
)

// Name is the plugin's name.
const Name = "scripted"

// Config is the answerer's config.
type Config struct {
	// Rules, tried in order before those of File.
	Rules []Rule `json:"rules,omitempty"`
	// File is a JSON file of more rules: a list, or {"rules": [...]}.
	File string `json:"file,omitempty"`
}

// Rule matches interrupts to an answer. Exactly one of Answer, Approve and
// Payload is set; it decides the kind of interrupt the rule is for.
type Rule struct {
	// Kind is the interrupt kind; empty means the kind of the body.
	Kind lux.InterruptKind `json:"kind,omitempty"`
	// ID, when set, must equal the interrupt's id.
	ID string `json:"id,omitempty"`
	// Match, when set, is a Go regular expression that must match the
	// interrupt's text. Use (?i) to ignore case.
	Match string `json:"match,omitempty"`
	// Default makes the rule answer any interrupt of its kind that no other
	// rule matched. A default rule has no ID or Match.
	Default bool `json:"default,omitempty"`

	Answer  string `json:"answer,omitempty"`  // ask: the answer text
	Approve *bool  `json:"approve,omitempty"` // approve: true approves, false denies
	Reason  string `json:"reason,omitempty"`  // approve: why (usually for a denial)
	Payload any    `json:"payload,omitempty"` // custom: the answer payload
}

// Reply returns a rule answering ask interrupts whose text matches pattern
// with text.
func Reply(pattern, text string) Rule { return Rule{Kind: lux.Ask, Match: pattern, Answer: text} }

// Approve returns a rule approving requests whose text matches pattern.
func Approve(pattern string) Rule {
	yes := true
	return Rule{Kind: lux.Approve, Match: pattern, Approve: &yes}
}

// Deny returns a rule denying requests whose text matches pattern, saying
// why.
func Deny(pattern, reason string) Rule {
	no := false
	return Rule{Kind: lux.Approve, Match: pattern, Approve: &no, Reason: reason}
}

// Respond returns a rule answering custom interrupts whose text matches
// pattern with payload.
func Respond(pattern string, payload any) Rule {
	return Rule{Kind: lux.Custom, Match: pattern, Payload: payload}
}

// Otherwise returns r as the default rule of its kind.
func Otherwise(r Rule) Rule {
	r.Default, r.Match, r.ID = true, "", ""
	return r
}

// Plugin returns the scripted answerer plugin.
func Plugin() *lux.AnswererPlugin {
	return &lux.AnswererPlugin{
		Name:  Name,
		Doc:   "Answers interrupts from a script of rules (kind, id, regular expression over the text) without a model.",
		Parse: func(raw json.RawMessage) (lux.AnswererConfig, error) { return parse(raw) },
	}
}

// New validates cfg as Parse does and returns the answerer config.
func New(cfg Config) (lux.AnswererConfig, error) {
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("scripted: config is not JSON-encodable: %w", err)
	}
	return parse(raw)
}

// rule is a validated rule.
type rule struct {
	Rule
	re *regexp.Regexp
}

func (r *rule) matches(in lux.Interrupt, text string) bool {
	return r.Kind == in.Kind && (r.ID == "" || r.ID == in.ID) && (r.re == nil || r.re.MatchString(text))
}

func (r *rule) answer(in lux.Interrupt) lux.Answer {
	a := lux.Answer{Kind: in.Kind, ID: in.ID}
	switch r.Kind {
	case lux.Ask:
		a.Text = r.Answer
	case lux.Approve:
		a.Approved, a.Reason = *r.Approve, r.Reason
	default:
		a.Payload = r.Payload
	}
	return a
}

// config is a parsed config: every rule, inline ones first.
type config struct {
	rules      []*rule
	file       string
	fileSHA256 string
}

// MarshalJSON records the rules themselves (those of the file included) so
// the config's hash changes with them.
func (c *config) MarshalJSON() ([]byte, error) {
	rules := make([]Rule, len(c.rules))
	for i, r := range c.rules {
		rules[i] = r.Rule
	}
	return json.Marshal(struct {
		Rules      []Rule `json:"rules"`
		File       string `json:"file,omitempty"`
		FileSHA256 string `json:"fileSha256,omitempty"`
	}{rules, c.file, c.fileSHA256})
}

// Prepare returns the answerer of one run.
func (c *config) Prepare(ctx context.Context, _ lux.AnswererInfo) (lux.Answerer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &answerer{rules: c.rules}, nil
}

type answerer struct {
	rules []*rule
}

// Answer answers in from the first rule that matches it, else from the
// default rule of its kind.
func (a *answerer) Answer(ctx context.Context, in lux.Interrupt, _ []lux.Exchange) (lux.Answer, error) {
	if err := ctx.Err(); err != nil {
		return lux.Answer{}, err
	}
	text := in.Text()
	for _, r := range a.rules {
		if !r.Default && r.matches(in, text) {
			return r.answer(in), nil
		}
	}
	for _, r := range a.rules {
		if r.Default && r.Kind == in.Kind {
			return r.answer(in), nil
		}
	}
	return lux.Answer{}, &unansweredError{in: in, text: text}
}

// Usage is zero: the script uses no model.
func (a *answerer) Usage() lux.ModelUsage { return lux.ModelUsage{} }

// Close releases nothing.
func (a *answerer) Close() error { return nil }

// unansweredError is an interrupt no rule answers.
type unansweredError struct {
	in   lux.Interrupt
	text string
}

func (e *unansweredError) Error() string {
	what := "question"
	switch e.in.Kind {
	case lux.Approve:
		what = "request"
	case lux.Custom:
		what = "payload"
	}
	text := e.text
	if r := []rune(text); len(r) > 500 {
		text = string(r[:500]) + "…"
	}
	return fmt.Sprintf("scripted: no rule answers %s interrupt %q; the %s was %q", e.in.Kind, e.in.ID, what, text)
}

// Unwrap makes the error match lux.ErrUnanswered.
func (e *unansweredError) Unwrap() error { return lux.ErrUnanswered }
