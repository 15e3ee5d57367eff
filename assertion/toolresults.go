package assertion

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/luxeval/lux"
)

// Which results (or invocations) of a tool a check looks at: the first,
// the last, or any of them.
const (
	OccurrenceFirst = "first"
	OccurrenceLast  = "last"
	OccurrenceAny   = "any"
)

// checkOccurrence validates an occurrence field and fills its default.
func checkOccurrence(o *string, def string, p *lux.Problems) {
	switch *o {
	case "":
		*o = def
	case OccurrenceFirst, OccurrenceLast, OccurrenceAny:
	default:
		p.AddFix("occurrence", fmt.Sprintf("must be %q, %q or %q, got %q", OccurrenceFirst, OccurrenceLast, OccurrenceAny, *o),
			fmt.Sprintf("leave it out for %q", def))
	}
}

// pick returns the first, the last or all of xs.
func pick[T any](xs []T, occurrence string) []T {
	switch {
	case len(xs) == 0:
		return nil
	case occurrence == OccurrenceFirst:
		return xs[:1]
	case occurrence == OccurrenceLast:
		return xs[len(xs)-1:]
	}
	return xs
}

// malformedTools describes the tool events of the trajectory that cannot be
// graded — a payload that did not decode, a call or result without a name
// or tool use id — among the results, and the calls too when calls is
// set; "" when there are none. Such a run cannot be graded: the driver's
// tool events are broken, not the agent's work.
func malformedTools(events []lux.Event, calls bool) string {
	var bad []string
	for _, e := range events {
		if e.Type != lux.EventProgress || e.Progress == nil {
			continue
		}
		p := e.Progress
		var why string
		switch {
		case p.Kind == lux.KindToolResult && p.ToolResult == nil:
			why = "payload is not a tool result"
		case p.Kind == lux.KindToolResult && (p.ToolResult.Name == "" || p.ToolResult.ToolUseID == ""):
			why = "result without a name or toolUseId"
		case calls && p.Kind == lux.KindToolCall && p.ToolCall == nil:
			why = "payload is not a tool call"
		case calls && p.Kind == lux.KindToolCall && (p.ToolCall.Name == "" || p.ToolCall.ToolUseID == ""):
			why = "call without a name or toolUseId"
		default:
			continue
		}
		bad = append(bad, fmt.Sprintf("%q: %s", p.ID, why))
	}
	if len(bad) == 0 {
		return ""
	}
	more := ""
	if len(bad) > 3 {
		more = fmt.Sprintf(" and %d more", len(bad)-3)
		bad = bad[:3]
	}
	return fmt.Sprintf("%s (%s%s)", plural(len(bad), "malformed tool event", "malformed tool events"), strings.Join(bad, "; "), more)
}

// resultsOf returns the tool results of tool (every tool when tool is
// ""), in order; an error when some tool result is malformed.
func resultsOf(typ string, run *lux.Run, tool string) ([]lux.ToolResult, error) {
	if bad := malformedTools(run.Events, false); bad != "" {
		return nil, fmt.Errorf("assertion: %s: cannot grade: %s", typ, bad)
	}
	var out []lux.ToolResult
	for _, r := range ToolResults(run.Events) {
		if tool == "" || r.Name == tool {
			out = append(out, r)
		}
	}
	return out, nil
}

// noResults is the failing result of a check that found no result to look at.
func noResults(tool string) lux.Result {
	return Fail("no tool result captured for "+toolLabel(tool), map[string]any{"tool": tool, "results": 0})
}

func toolLabel(tool string) string {
	if tool == "" {
		return "any tool"
	}
	return fmt.Sprintf("%q", tool)
}

// resultValue is the value of a tool result that pointers look into: its
// structured content; else its text, or a string content, parsed as JSON;
// else its content; else its text.
func resultValue(r lux.ToolResult) any {
	if r.StructuredContent != nil {
		if v, err := generic(r.StructuredContent); err == nil {
			return v
		}
	}
	content, err := generic(r.Content)
	if err != nil {
		content = nil
	}
	switch c := content.(type) {
	case []any:
		if v, ok := parseJSON(r.Text); ok {
			return v
		}
		return c
	case string:
		if v, ok := parseJSON(c); ok {
			return v
		}
		return c
	case nil:
		if v, ok := parseJSON(r.Text); ok {
			return v
		}
		return r.Text
	default:
		return c
	}
}

func parseJSON(s string) (any, bool) {
	if strings.TrimSpace(s) == "" {
		return nil, false
	}
	v, err := decodeJSON([]byte(s))
	return v, err == nil
}

// resultText is the text of a tool result that contains-checks search:
// its text; else its content, as text.
func resultText(r lux.ToolResult) string {
	if r.Text != "" {
		return r.Text
	}
	if s, ok := r.Content.(string); ok {
		return s
	}
	if r.Content == nil {
		return ""
	}
	return jsonText(r.Content)
}

// valueText is a value as text: a string as is, anything else as JSON.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return jsonText(v)
}

// samples returns up to three clipped texts, for a failing result's detail.
func samples(results []lux.ToolResult) []string {
	out := []string{}
	for _, r := range results[:min(len(results), 3)] {
		out = append(out, clip(resultText(r), 200))
	}
	return out
}

type toolResultIsErrorConfig struct {
	Tool       string `json:"tool,omitempty"`
	Expected   *bool  `json:"expected,omitempty"`
	Occurrence string `json:"occurrence,omitempty"`
}

func toolResultIsError() *lux.AssertionPlugin {
	return define("tool-result-is-error",
		"Passes when the result of tool (of any tool when it is left out) has isError equal to expected (default true): the last result by default, the first, or any one of them.",
		func(c *toolResultIsErrorConfig, p *lux.Problems) {
			if c.Expected == nil {
				t := true
				c.Expected = &t
			}
			checkOccurrence(&c.Occurrence, OccurrenceLast, p)
		},
		func(_ context.Context, c *toolResultIsErrorConfig, run *lux.Run) (lux.Result, error) {
			results, err := resultsOf("tool-result-is-error", run, c.Tool)
			if err != nil {
				return lux.Result{}, err
			}
			if len(results) == 0 {
				return noResults(c.Tool), nil
			}
			selected := pick(results, c.Occurrence)
			flags := make([]bool, len(selected))
			hits := 0
			for i, r := range selected {
				flags[i] = r.IsError
				if r.IsError == *c.Expected {
					hits++
				}
			}
			ok := hits == len(selected)
			if c.Occurrence == OccurrenceAny {
				ok = hits > 0
			}
			detail := map[string]any{"tool": c.Tool, "occurrence": c.Occurrence, "expected": *c.Expected, "results": len(results), "isError": flags}
			comment := fmt.Sprintf("%s result of %s: isError %v, expected %v", c.Occurrence, toolLabel(c.Tool), flags, *c.Expected)
			if c.Occurrence == OccurrenceAny {
				comment = fmt.Sprintf("%d of %s of %s had isError %v", hits, plural(len(selected), "result", "results"), toolLabel(c.Tool), *c.Expected)
			}
			if ok {
				return Pass(comment, detail), nil
			}
			detail["texts"] = samples(selected)
			return Fail(comment, detail), nil
		})
}

type toolResultContainsConfig struct {
	Tool       string `json:"tool,omitempty"`
	Text       string `json:"text"`
	Occurrence string `json:"occurrence,omitempty"`
}

func toolResultContains() *lux.AssertionPlugin {
	return define("tool-result-contains",
		"Passes when a result of tool (of any tool when it is left out) contains text: its text, or its content as text. occurrence: any (default), first or last.",
		func(c *toolResultContainsConfig, p *lux.Problems) {
			if c.Text == "" {
				p.AddFix("text", "required", "give the text a tool result must contain")
			}
			checkOccurrence(&c.Occurrence, OccurrenceAny, p)
		},
		func(_ context.Context, c *toolResultContainsConfig, run *lux.Run) (lux.Result, error) {
			results, err := resultsOf("tool-result-contains", run, c.Tool)
			if err != nil {
				return lux.Result{}, err
			}
			if len(results) == 0 {
				return noResults(c.Tool), nil
			}
			selected := pick(results, c.Occurrence)
			var ids []string
			for _, r := range selected {
				if strings.Contains(resultText(r), c.Text) {
					ids = append(ids, r.ToolUseID)
				}
			}
			detail := map[string]any{"tool": c.Tool, "occurrence": c.Occurrence, "results": len(results), "selected": len(selected), "matches": len(ids)}
			if len(ids) > 0 {
				detail["toolUseIds"] = ids[:min(len(ids), 10)]
				return Pass(fmt.Sprintf("%d of %s of %s contain %q", len(ids), plural(len(selected), "result", "results"), toolLabel(c.Tool), clip(c.Text, 80)), detail), nil
			}
			detail["texts"] = samples(selected)
			return Fail(fmt.Sprintf("no %s result of %s contains %q", c.Occurrence, toolLabel(c.Tool), clip(c.Text, 80)), detail), nil
		})
}

type toolResultPointerConfig struct {
	Tool        string          `json:"tool"`
	JSONPointer string          `json:"jsonPointer,omitempty"`
	Value       json.RawMessage `json:"value,omitempty"`
	Contains    *string         `json:"contains,omitempty"`
	Occurrence  string          `json:"occurrence,omitempty"`

	tokens []string
	want   any
}

func toolResultJSONPointerEquals() *lux.AssertionPlugin {
	return define("tool-result-json-pointer-equals",
		"Passes when the value of a result of tool (its structured content, else its text parsed as JSON) holds, at jsonPointer, value — or text containing contains. occurrence: last (default), first or any.",
		func(c *toolResultPointerConfig, p *lux.Problems) {
			if c.Tool == "" {
				p.AddFix("tool", "required", toolFix)
			}
			c.tokens = checkPointer("jsonPointer", c.JSONPointer, `write a JSON pointer into the result such as "/sum", or "" for the whole value`, p)
			switch {
			case c.Value != nil && c.Contains != nil:
				p.AddFix("contains", "cannot be combined with value", "keep one of them")
			case c.Value != nil:
				c.want = checkValue("value", c.Value, p)
			case c.Contains != nil && *c.Contains == "":
				p.AddFix("contains", "must not be empty", "give the text the value must contain")
			case c.Contains == nil:
				p.AddFix("value", "value or contains is required", "give the value expected at jsonPointer, or text it must contain")
			}
			checkOccurrence(&c.Occurrence, OccurrenceLast, p)
		},
		func(_ context.Context, c *toolResultPointerConfig, run *lux.Run) (lux.Result, error) {
			results, err := resultsOf("tool-result-json-pointer-equals", run, c.Tool)
			if err != nil {
				return lux.Result{}, err
			}
			if len(results) == 0 {
				return noResults(c.Tool), nil
			}
			selected := pick(results, c.Occurrence)
			var found []string
			matched := false
			for _, r := range selected {
				v, ok := resolvePointer(resultValue(r), c.tokens)
				if !ok {
					found = append(found, "<absent>")
					continue
				}
				found = append(found, clip(jsonText(v), 200))
				if c.Value != nil && jsonEqual(v, c.want) || c.Contains != nil && strings.Contains(valueText(v), *c.Contains) {
					matched = true
				}
			}
			at := c.JSONPointer
			if at == "" {
				at = "the whole value"
			}
			want := "= " + clip(jsonText(c.want), 80)
			if c.Contains != nil {
				want = fmt.Sprintf("containing %q", clip(*c.Contains, 80))
			}
			detail := map[string]any{"tool": c.Tool, "jsonPointer": c.JSONPointer, "occurrence": c.Occurrence, "results": len(results), "values": found[:min(len(found), 10)]}
			comment := fmt.Sprintf("%s result of %q at %s: %s, want %s", c.Occurrence, c.Tool, at, strings.Join(found[:min(len(found), 3)], ", "), want)
			return verdict(matched, comment, detail), nil
		})
}

type noErrorResultsConfig struct {
	AllowEmpty bool `json:"allowEmpty,omitempty"`
}

func noErrorResults() *lux.AssertionPlugin {
	return define("no-error-results",
		"Passes when no tool result has isError. A run without tool results fails, unless allowEmpty.",
		nil,
		func(_ context.Context, c *noErrorResultsConfig, run *lux.Run) (lux.Result, error) {
			results, err := resultsOf("no-error-results", run, "")
			if err != nil {
				return lux.Result{}, err
			}
			if len(results) == 0 {
				if c.AllowEmpty {
					return Pass("no tool results captured (allowEmpty)", map[string]any{"results": 0}), nil
				}
				return Fail("no tool results captured (set allowEmpty to pass such a run)", map[string]any{"results": 0}), nil
			}
			offenders := []map[string]any{}
			var names []string
			for _, r := range results {
				if r.IsError {
					offenders = append(offenders, map[string]any{"tool": r.Name, "toolUseId": r.ToolUseID, "text": clip(resultText(r), 200)})
					names = append(names, r.Name)
				}
			}
			detail := map[string]any{"results": len(results), "offenders": offenders}
			if len(offenders) == 0 {
				return Pass(fmt.Sprintf("none of %s had isError", plural(len(results), "tool result", "tool results")), detail), nil
			}
			return Fail(fmt.Sprintf("%d of %s had isError: %s", len(offenders), plural(len(results), "tool result", "tool results"), strings.Join(names, ", ")), detail), nil
		})
}
