package assertion

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/luxeval/lux"
)

// The results a tool-invocation looks for.
const (
	ResultSuccess = "success" // the result has no isError
	ResultError   = "error"   // the result has isError
	ResultAny     = "any"
)

// ValueMatch is how tool-invocation matches a call's input or a result's
// value: the value at JSONPointer equals Equals, or its text (a string as
// is, anything else as JSON) contains Contains or matches the Go regular
// expression Matches (with Flags). Exactly one of the three is set.
type valueMatch struct {
	JSONPointer string          `json:"jsonPointer,omitempty"`
	Equals      json.RawMessage `json:"equals,omitempty"`
	Contains    *string         `json:"contains,omitempty"`
	Matches     *string         `json:"matches,omitempty"`
	Flags       string          `json:"flags,omitempty"`

	tokens []string
	want   any
	re     *regexp.Regexp
}

// validate checks m, a field named at, and prepares it.
func (m *valueMatch) validate(at string, p *lux.Problems) {
	var sub lux.Problems
	m.tokens = checkPointer("jsonPointer", m.JSONPointer, `write a JSON pointer such as "/path", or "" for the whole value`, &sub)
	n := 0
	if m.Equals != nil {
		n++
		m.want = checkValue("equals", m.Equals, &sub)
	}
	if m.Contains != nil {
		n++
		if *m.Contains == "" {
			sub.AddFix("contains", "must not be empty", "give the text the value must contain")
		}
	}
	if m.Matches != nil {
		n++
		var re lux.Problems
		m.re = checkRegexp(*m.Matches, m.Flags, &re)
		for _, e := range lux.ProblemsOf(re.Err(nil)) {
			if fe, ok := e.(*lux.FieldError); ok {
				if fe.Path == "pattern" {
					fe.Path = "matches"
				}
				sub.AddFix(fe.Path, fe.Problem, fe.Fix)
			}
		}
	} else if m.Flags != "" {
		sub.AddFix("flags", "only with matches", "remove flags, or give matches")
	}
	if n != 1 {
		sub.AddFix("", fmt.Sprintf("set exactly one of equals, contains and matches (%d set)", n), `e.g. {"jsonPointer": "/path", "contains": "README"}`)
	}
	p.Merge(at, sub.Err(nil))
}

// match reports whether root (decoded JSON) matches.
func (m *valueMatch) match(root any) bool {
	v, ok := resolvePointer(root, m.tokens)
	switch {
	case !ok:
		return false
	case m.Equals != nil:
		return jsonEqual(v, m.want)
	case m.Contains != nil:
		return strings.Contains(valueText(v), *m.Contains)
	case m.re != nil:
		return m.re.MatchString(valueText(v))
	}
	return false
}

// describe says what m asks, for a comment.
func (m *valueMatch) describe(of string) string {
	at := of + m.JSONPointer
	switch {
	case m.Equals != nil:
		return fmt.Sprintf("%s = %s", at, clip(jsonText(m.want), 80))
	case m.Contains != nil:
		return fmt.Sprintf("%s containing %q", at, clip(*m.Contains, 80))
	case m.Matches != nil:
		return fmt.Sprintf("%s matching /%s/", at, *m.Matches)
	}
	return at
}

// invocation is a tool call and the result that answers it, if any.
type invocation struct {
	call   lux.ToolCall
	result *lux.ToolResult
}

// invocations correlates the calls of tool with their results, in call
// order. A call and a result correlate when they share parent tool use id,
// name and tool use id, and the result comes after the call; a key called
// more than once is ambiguous, so none of its calls gets a result.
func invocations(events []lux.Event, tool string) []invocation {
	type key struct{ parent, name, id string }
	var out []invocation
	pending := map[key]int{} // index in out, or -1 when ambiguous
	for _, e := range events {
		if e.Type != lux.EventProgress || e.Progress == nil {
			continue
		}
		if c := e.Progress.ToolCall; c != nil && e.Progress.Kind == lux.KindToolCall && c.Name == tool && c.ToolUseID != "" {
			k := key{c.ParentToolUseID, c.Name, c.ToolUseID}
			if _, seen := pending[k]; seen {
				pending[k] = -1
			} else {
				pending[k] = len(out)
			}
			out = append(out, invocation{call: *c})
			continue
		}
		if r := e.Progress.ToolResult; r != nil && e.Progress.Kind == lux.KindToolResult && r.Name == tool {
			k := key{r.ParentToolUseID, r.Name, r.ToolUseID}
			if i, ok := pending[k]; ok && i >= 0 {
				res := *r
				out[i].result = &res
				delete(pending, k)
			}
		}
	}
	return out
}

type toolInvocationConfig struct {
	Tool       string      `json:"tool"`
	Result     string      `json:"result,omitempty"`
	Occurrence string      `json:"occurrence,omitempty"`
	Input      *valueMatch `json:"input,omitempty"`
	Output     *valueMatch `json:"output,omitempty"`
}

func toolInvocation() *lux.AssertionPlugin {
	return define("tool-invocation",
		"Passes when a call of tool (the first, the last or any: occurrence, default any) got a result of the kind asked (result: success, the default; error; any), with input and output matching: a value at jsonPointer that equals, contains or matches.",
		func(c *toolInvocationConfig, p *lux.Problems) {
			if c.Tool == "" {
				p.AddFix("tool", "required", toolFix)
			}
			switch c.Result {
			case "":
				c.Result = ResultSuccess
			case ResultSuccess, ResultError, ResultAny:
			default:
				p.AddFix("result", fmt.Sprintf("must be %q, %q or %q, got %q", ResultSuccess, ResultError, ResultAny, c.Result), "leave it out for success")
			}
			checkOccurrence(&c.Occurrence, OccurrenceAny, p)
			if c.Input != nil {
				c.Input.validate("input", p)
			}
			if c.Output != nil {
				c.Output.validate("output", p)
			}
		},
		func(_ context.Context, c *toolInvocationConfig, run *lux.Run) (lux.Result, error) {
			if bad := malformedTools(run.Events, true); bad != "" {
				return lux.Result{}, fmt.Errorf("assertion: tool-invocation: cannot grade: %s", bad)
			}
			all := invocations(run.Events, c.Tool)
			selected := pick(all, c.Occurrence)
			paired, kind, matches := 0, 0, 0
			for _, inv := range selected {
				if inv.result == nil {
					continue
				}
				paired++
				if c.Result == ResultSuccess && inv.result.IsError || c.Result == ResultError && !inv.result.IsError {
					continue
				}
				kind++
				if c.Input != nil {
					input, err := generic(inv.call.Input)
					if err != nil || !c.Input.match(input) {
						continue
					}
				}
				if c.Output != nil && !c.Output.match(resultValue(*inv.result)) {
					continue
				}
				matches++
			}
			detail := map[string]any{"tool": c.Tool, "result": c.Result, "occurrence": c.Occurrence,
				"calls": len(all), "selected": len(selected), "paired": paired, "resultMatches": kind, "matches": matches}
			what := c.Result + " invocation"
			if c.Result == ResultAny {
				what = "invocation"
			}
			var conds []string
			if c.Input != nil {
				conds = append(conds, c.Input.describe("input"))
			}
			if c.Output != nil {
				conds = append(conds, c.Output.describe("output"))
			}
			with := ""
			if len(conds) > 0 {
				with = " with " + strings.Join(conds, " and ")
			}
			scope := ""
			if c.Occurrence != OccurrenceAny {
				scope = fmt.Sprintf(" (%s of %s)", c.Occurrence, plural(len(all), "call", "calls"))
			}
			if matches > 0 {
				return Pass(fmt.Sprintf("%q has %d matching %s%s%s", c.Tool, matches, what, with, scope), detail), nil
			}
			return Fail(fmt.Sprintf("%q has no matching %s%s%s: %s, %d paired with a result, %d of the kind asked", c.Tool, what, with, scope,
				plural(len(all), "call", "calls"), paired, kind), detail), nil
		})
}
