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
// An approve rule may also match the approval every built-in driver gives
// (lux.Approval): "action" (command, edit, permissions, tool) and "tool"
// must equal the approval's, "command" and "path" are regular expressions
// over its command and any of its paths. An ask of several questions
// (lux.Interrupt.Questions) is answered one question at a time: each by the
// first rule whose match fits that question's text (or whose id names it or
// the interrupt), else the default ask rule; the answer holds them by
// question id (lux.Answer.Answers). So one config works for every driver.
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
	"slices"

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
	// rule matched. A default rule has no ID, Match or approval matcher.
	Default bool `json:"default,omitempty"`

	// Approval matchers (approve rules only), over the approval every
	// built-in driver gives (lux.Approval), so one rule works for Claude
	// Code, Codex and lux-jsonl agents alike. Each that is set must match.
	Action  string `json:"action,omitempty"`  // equals the approval's action: command, edit, permissions, tool
	Tool    string `json:"tool,omitempty"`    // equals the approval's tool, e.g. "Bash"
	Command string `json:"command,omitempty"` // Go regular expression over the command to run
	Path    string `json:"path,omitempty"`    // Go regular expression over any of the paths it touches

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
	re, command, path *regexp.Regexp
}

func (r *rule) matches(in lux.Interrupt, text string) bool {
	return r.Kind == in.Kind && (r.ID == "" || r.ID == in.ID) && (r.re == nil || r.re.MatchString(text)) && r.matchesApproval(in)
}

// matchesApproval checks the approval matchers, if any.
func (r *rule) matchesApproval(in lux.Interrupt) bool {
	if r.Action == "" && r.Tool == "" && r.command == nil && r.path == nil {
		return true
	}
	a, ok := in.Approval()
	if !ok || (r.Action != "" && r.Action != a.Action) || (r.Tool != "" && r.Tool != a.Tool) ||
		(r.command != nil && !r.command.MatchString(a.Command)) {
		return false
	}
	return r.path == nil || slices.ContainsFunc(a.Paths, r.path.MatchString)
}

// matchesQuestion reports whether an ask rule answers question q of in: its
// id (if given) names the interrupt or the question, its match (if given)
// matches the question's text.
func (r *rule) matchesQuestion(in lux.Interrupt, q lux.Question) bool {
	return r.Kind == lux.Ask && (r.ID == "" || r.ID == in.ID || r.ID == q.ID) && (r.re == nil || r.re.MatchString(q.Text))
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
	if in.Kind == lux.Ask && len(in.Questions) > 1 {
		return a.answerEach(in)
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

// answerEach answers an ask of several questions one question at a time:
// each by the first rule that matches it, else the default ask rule. The
// answers are keyed by question id (lux.Answer.Answers), whichever driver
// asked.
func (a *answerer) answerEach(in lux.Interrupt) (lux.Answer, error) {
	out := lux.Answer{Kind: lux.Ask, ID: in.ID, Answers: map[string]string{}}
	for _, q := range in.Questions {
		var found *rule
		for _, r := range a.rules {
			if !r.Default && r.matchesQuestion(in, q) {
				found = r
				break
			}
		}
		if found == nil {
			for _, r := range a.rules {
				if r.Default && r.Kind == lux.Ask {
					found = r
					break
				}
			}
		}
		if found == nil {
			return lux.Answer{}, &unansweredError{in: in, text: fmt.Sprintf("%s (question %s of %d)", q.Text, q.ID, len(in.Questions))}
		}
		out.Answers[q.ID] = found.Answer
	}
	return out, nil
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
