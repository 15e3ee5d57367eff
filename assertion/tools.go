package assertion

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/luxeval/lux"
)

const toolFix = "name the tool in \"tool\"; \"name\" is the assertion's display name"

func checkBy(by *CallScope, p *lux.Problems) {
	if *by == "" {
		*by = AnyAgent
	}
	if !by.Valid() {
		p.AddFix("by", fmt.Sprintf("must be %q, %q or %q, got %q", AnyAgent, MainAgent, Subagent, *by),
			"leave it out to count calls by any agent")
	}
}

// callsOf returns the calls of tool (every tool when tool is "") in scope by.
func callsOf(run *lux.Run, tool string, by CallScope) []lux.ToolCall {
	var out []lux.ToolCall
	for _, c := range ToolCalls(run.Events, by) {
		if tool == "" || c.Name == tool {
			out = append(out, c)
		}
	}
	return out
}

func scopeSuffix(by CallScope) string {
	switch by {
	case MainAgent:
		return " by the main agent"
	case Subagent:
		return " by subagents"
	}
	return ""
}

type toolCalledConfig struct {
	Tool     string    `json:"tool"`
	MinTimes *int      `json:"minTimes,omitempty"`
	MaxTimes *int      `json:"maxTimes,omitempty"`
	By       CallScope `json:"by,omitempty"`
}

func toolCalled() *lux.AssertionPlugin {
	return define("tool-called",
		"Passes when the agent called tool between minTimes and maxTimes times (default: at least once; with maxTimes alone, at most maxTimes). by: any | main | subagent.",
		func(c *toolCalledConfig, p *lux.Problems) {
			if c.Tool == "" {
				p.AddFix("tool", "required", toolFix)
			}
			bounds{c.MinTimes, c.MaxTimes}.validate("minTimes", "maxTimes", false, p)
			if c.MinTimes == nil {
				n := 1
				if c.MaxTimes != nil {
					n = 0
				}
				c.MinTimes = &n
			}
			checkBy(&c.By, p)
		},
		func(_ context.Context, c *toolCalledConfig, run *lux.Run) (lux.Result, error) {
			n := len(callsOf(run, c.Tool, c.By))
			b := bounds{c.MinTimes, c.MaxTimes}
			ok, why := b.check(n)
			detail := map[string]any{"tool": c.Tool, "by": string(c.By), "calls": n, "minTimes": *c.MinTimes}
			if c.MaxTimes != nil {
				detail["maxTimes"] = *c.MaxTimes
			}
			comment := fmt.Sprintf("%q called %s%s: %s", c.Tool, plural(n, "time", "times"), scopeSuffix(c.By), why)
			return verdict(ok, comment, detail), nil
		})
}

type toolCallCountConfig struct {
	Tool string    `json:"tool,omitempty"`
	Min  *int      `json:"min,omitempty"`
	Max  *int      `json:"max,omitempty"`
	By   CallScope `json:"by,omitempty"`
}

func toolCallCount() *lux.AssertionPlugin {
	return define("tool-call-count",
		"Passes when the number of tool calls (of tool, or of every tool when it is left out) is within min and max. by: any | main | subagent.",
		func(c *toolCallCountConfig, p *lux.Problems) {
			bounds{c.Min, c.Max}.validate("min", "max", true, p)
			checkBy(&c.By, p)
		},
		func(_ context.Context, c *toolCallCountConfig, run *lux.Run) (lux.Result, error) {
			n := len(callsOf(run, c.Tool, c.By))
			b := bounds{c.Min, c.Max}
			ok, why := b.check(n)
			detail := b.detail(map[string]any{"by": string(c.By), "calls": n})
			what := plural(n, "tool call", "tool calls")
			if c.Tool != "" {
				detail["tool"] = c.Tool
				what = fmt.Sprintf("%s of %q", plural(n, "call", "calls"), c.Tool)
			}
			comment := fmt.Sprintf("%s%s: %s", what, scopeSuffix(c.By), why)
			return verdict(ok, comment, detail), nil
		})
}

type toolCalledWithConfig struct {
	Tool            string          `json:"tool"`
	ArgsJSONPointer string          `json:"argsJsonPointer,omitempty"`
	ArgsValue       json.RawMessage `json:"argsValue,omitempty"`
	ArgsContains    *string         `json:"argsContains,omitempty"`
	MinTimes        *int            `json:"minTimes,omitempty"`
	By              CallScope       `json:"by,omitempty"`

	tokens []string
	want   any
}

func toolCalledWith() *lux.AssertionPlugin {
	return define("tool-called-with",
		"Passes when at least minTimes (default 1) calls of tool have, at argsJsonPointer in their input, a value equal to argsValue or whose text contains argsContains. by: any | main | subagent.",
		func(c *toolCalledWithConfig, p *lux.Problems) {
			if c.Tool == "" {
				p.AddFix("tool", "required", toolFix)
			}
			c.tokens = checkPointer("argsJsonPointer", c.ArgsJSONPointer, `write a JSON pointer into the tool's input such as "/command"`, p)
			switch {
			case c.ArgsValue != nil && c.ArgsContains != nil:
				p.AddFix("argsContains", "cannot be combined with argsValue", "keep one of them")
			case c.ArgsValue != nil:
				c.want = checkValue("argsValue", c.ArgsValue, p)
			case c.ArgsContains != nil && *c.ArgsContains == "":
				p.AddFix("argsContains", "must not be empty", "leave it out to match every call of the tool")
			}
			if c.MinTimes == nil {
				n := 1
				c.MinTimes = &n
			} else if *c.MinTimes < 1 {
				p.AddFix("minTimes", fmt.Sprintf("must be at least 1, got %d", *c.MinTimes), "to require no such call, use tool-call-count with max 0")
			}
			checkBy(&c.By, p)
		},
		func(_ context.Context, c *toolCalledWithConfig, run *lux.Run) (lux.Result, error) {
			calls := callsOf(run, c.Tool, c.By)
			hits := 0
			var inputs []string
			for _, call := range calls {
				input, err := generic(call.Input)
				if err != nil {
					input = nil
				}
				if len(inputs) < 5 {
					inputs = append(inputs, clip(jsonText(input), 300))
				}
				if c.matches(input) {
					hits++
				}
			}
			detail := map[string]any{"tool": c.Tool, "by": string(c.By), "calls": len(calls), "hits": hits, "minTimes": *c.MinTimes}
			if c.ArgsJSONPointer != "" {
				detail["argsJsonPointer"] = c.ArgsJSONPointer
			}
			if hits < *c.MinTimes {
				detail["inputs"] = nonNil(inputs)
			}
			head := fmt.Sprintf("%d of %s of %q%s %s", hits, plural(len(calls), "call", "calls"), c.Tool, scopeSuffix(c.By), c.describe())
			if hits >= *c.MinTimes {
				return Pass(fmt.Sprintf("%s: %d >= %d", head, hits, *c.MinTimes), detail), nil
			}
			comment := fmt.Sprintf("%s: %d < min %d", head, hits, *c.MinTimes)
			return Fail(comment, detail), nil
		})
}

func (c *toolCalledWithConfig) describe() string {
	at := "input"
	if c.ArgsJSONPointer != "" {
		at = "input" + c.ArgsJSONPointer
	}
	switch {
	case c.ArgsValue != nil:
		return fmt.Sprintf("had %s = %s", at, clip(jsonText(c.want), 80))
	case c.ArgsContains != nil:
		return fmt.Sprintf("had %s containing %q", at, clip(*c.ArgsContains, 80))
	case c.ArgsJSONPointer != "":
		return "had " + at
	}
	return "matched"
}

// matches reports whether a call's decoded input satisfies the config.
func (c *toolCalledWithConfig) matches(input any) bool {
	v, ok := resolvePointer(input, c.tokens)
	if !ok {
		return false
	}
	switch {
	case c.ArgsValue != nil:
		return jsonEqual(v, c.want)
	case c.ArgsContains != nil:
		s, isString := v.(string)
		if !isString {
			s = jsonText(v)
		}
		return strings.Contains(s, *c.ArgsContains)
	}
	return true
}
