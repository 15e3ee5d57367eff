// Package mcp holds the assertions about an MCP server itself — who it
// says it is, what it can do, which tools it lists — over the mcp-init and
// mcp-tools-list events of a run (see package driver/mcpprobe, which
// emits them):
//
//	server-info-equals   server, version     the server's name and/or version at initialize
//	tool-listed          tool, expected      tool is (expected true, the default) or is not in the last tools/list
//	tools-listed-count   min, max            the number of tools in the last tools/list is in range
//	capability-absent    capability          the server does not advertise resources, prompts, logging, completions or tools
//
// The server's name is given by "server", not "name", and the tool by
// "tool": "name" is every assertion's display name. A run without the
// event an assertion reads (no initialize, no tools/list) fails it; a
// payload that does not decode leaves the case without a verdict.
//
// The assertions over tool calls and their results, which work for every
// driver (tool-invocation, tool-result-is-error, tool-result-contains,
// tool-result-json-pointer-equals, no-error-results), are in package
// assertion. These live apart because they read the events of one
// protocol; they are built with assertion.PredicateWith, the mechanism any
// assertion of one's own uses. All returns them and Register adds them
// to a registry (builtin does).
package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/mcpprobe"
)

// All returns the MCP server assertions, in a stable order. Each call
// returns new values.
func All() []*lux.AssertionPlugin {
	return []*lux.AssertionPlugin{serverInfoEquals(), toolListed(), toolsListedCount(), capabilityAbsent()}
}

// Register adds the MCP server assertions to reg; it stops at the first
// type reg already holds.
func Register(reg *lux.Registry) error {
	for _, p := range All() {
		if err := reg.RegisterAssertion(p); err != nil {
			return err
		}
	}
	return nil
}

// plugin is a predicate with its own doc.
func plugin(p *lux.AssertionPlugin, doc string) *lux.AssertionPlugin {
	p.Doc = doc
	return p
}

func fail(comment string, detail any) (lux.Result, error) {
	return assertion.Fail(comment, detail), nil
}

func verdict(ok bool, comment string, detail any) (lux.Result, error) {
	if ok {
		return assertion.Pass(comment, detail), nil
	}
	return assertion.Fail(comment, detail), nil
}

// ServerInfoConfig is server-info-equals' config.
type ServerInfoConfig struct {
	Server  *string `json:"server,omitempty"`
	Version *string `json:"version,omitempty"`
}

// Validate requires at least one of server and version.
func (c ServerInfoConfig) Validate() error {
	if c.Server == nil && c.Version == nil {
		var p lux.Problems
		p.AddFix("server", "server or version is required", `give the expected name in "server" ("name" is the assertion's display name), the version in "version", or both`)
		return p.Err(nil)
	}
	return nil
}

func serverInfoEquals() *lux.AssertionPlugin {
	return plugin(assertion.PredicateWith("server-info-equals", func(_ context.Context, run *lux.Run, c ServerInfoConfig) (lux.Result, error) {
		init, err := mcpprobe.LastInit(run.Events)
		if err != nil {
			return lux.Result{}, err
		}
		if init == nil || init.ServerInfo == nil {
			return fail("no initialize result with server info captured", map[string]any{"init": init != nil})
		}
		info := init.ServerInfo
		var wrong []string
		if c.Server != nil && info.Name != *c.Server {
			wrong = append(wrong, fmt.Sprintf("name %q, want %q", info.Name, *c.Server))
		}
		if c.Version != nil && info.Version != *c.Version {
			wrong = append(wrong, fmt.Sprintf("version %q, want %q", info.Version, *c.Version))
		}
		detail := map[string]any{"serverInfo": info}
		if len(wrong) > 0 {
			return fail("server "+strings.Join(wrong, "; "), detail)
		}
		return verdict(true, fmt.Sprintf("server %s %s", info.Name, info.Version), detail)
	}), "Passes when the server's name (server) and/or version at initialize are the ones given.")
}

// ToolListedConfig is tool-listed's config.
type ToolListedConfig struct {
	Tool     string `json:"tool"`
	Expected *bool  `json:"expected,omitempty"`
}

// Validate requires the tool.
func (c ToolListedConfig) Validate() error {
	if c.Tool == "" {
		var p lux.Problems
		p.AddFix("tool", "required", `name the tool in "tool"; "name" is the assertion's display name`)
		return p.Err(nil)
	}
	return nil
}

// lastList returns the tools of the last tools/list, or a failing result.
func lastList(run *lux.Run) (*mcpprobe.ToolsList, *lux.Result, error) {
	l, err := mcpprobe.LastToolsList(run.Events)
	if err != nil {
		return nil, nil, err
	}
	if l == nil {
		r := assertion.Fail("no tools/list captured (add a list-tools step to the probe)", map[string]any{"lists": 0})
		return nil, &r, nil
	}
	return l, nil, nil
}

func toolListed() *lux.AssertionPlugin {
	return plugin(assertion.PredicateWith("tool-listed", func(_ context.Context, run *lux.Run, c ToolListedConfig) (lux.Result, error) {
		l, res, err := lastList(run)
		if l == nil {
			return deref(res), err
		}
		want := c.Expected == nil || *c.Expected
		names := l.Names()
		listed := slices.Contains(names, c.Tool)
		detail := map[string]any{"tool": c.Tool, "expected": want, "listed": listed, "tools": names}
		if listed {
			return verdict(want, fmt.Sprintf("%q is listed", c.Tool), detail)
		}
		return verdict(!want, fmt.Sprintf("%q is not among the %d listed tools", c.Tool, len(names)), detail)
	}), "Passes when tool is (expected true, the default) or is not (expected false) among the tools of the last tools/list.")
}

// CountConfig is tools-listed-count's config.
type CountConfig struct {
	Min *int `json:"min,omitempty"`
	Max *int `json:"max,omitempty"`
}

// Validate requires a bound, non-negative bounds and min <= max.
func (c CountConfig) Validate() error {
	var p lux.Problems
	if c.Min == nil && c.Max == nil {
		p.AddFix("min", "min or max is required", "give at least one bound")
	}
	if c.Min != nil && *c.Min < 0 {
		p.Addf("min", "must not be negative, got %d", *c.Min)
	}
	if c.Max != nil && *c.Max < 0 {
		p.Addf("max", "must not be negative, got %d", *c.Max)
	}
	if c.Min != nil && c.Max != nil && *c.Min > *c.Max {
		p.Addf("max", "must be at least min (%d), got %d", *c.Min, *c.Max)
	}
	return p.Err(nil)
}

func toolsListedCount() *lux.AssertionPlugin {
	return plugin(assertion.PredicateWith("tools-listed-count", func(_ context.Context, run *lux.Run, c CountConfig) (lux.Result, error) {
		l, res, err := lastList(run)
		if l == nil {
			return deref(res), err
		}
		n := len(l.Tools)
		detail := map[string]any{"count": n, "tools": l.Names()}
		switch {
		case c.Min != nil && n < *c.Min:
			return fail(fmt.Sprintf("%d tools listed: %d < min %d", n, n, *c.Min), detail)
		case c.Max != nil && n > *c.Max:
			return fail(fmt.Sprintf("%d tools listed: %d > max %d", n, n, *c.Max), detail)
		}
		return verdict(true, fmt.Sprintf("%d tools listed, within bounds", n), detail)
	}), "Passes when the number of tools in the last tools/list is within min and max.")
}

// The capabilities capability-absent checks.
var capabilities = []string{"resources", "prompts", "logging", "completions", "tools"}

// CapabilityConfig is capability-absent's config.
type CapabilityConfig struct {
	Capability string `json:"capability"`
}

// Validate requires one of the known capabilities.
func (c CapabilityConfig) Validate() error {
	if !slices.Contains(capabilities, c.Capability) {
		var p lux.Problems
		p.AddFix("capability", fmt.Sprintf("must be one of %s, got %q", strings.Join(capabilities, ", "), c.Capability), "name the capability the server must not advertise")
		return p.Err(nil)
	}
	return nil
}

func capabilityAbsent() *lux.AssertionPlugin {
	return plugin(assertion.PredicateWith("capability-absent", func(_ context.Context, run *lux.Run, c CapabilityConfig) (lux.Result, error) {
		init, err := mcpprobe.LastInit(run.Events)
		if err != nil {
			return lux.Result{}, err
		}
		if init == nil {
			return fail("no initialize result captured", map[string]any{"init": false})
		}
		v, present := init.Capabilities[c.Capability]
		present = present && v != nil && v != false
		advertised := make([]string, 0, len(init.Capabilities))
		for k := range init.Capabilities {
			advertised = append(advertised, k)
		}
		slices.Sort(advertised)
		detail := map[string]any{"capability": c.Capability, "present": present, "capabilities": advertised}
		if present {
			return fail(fmt.Sprintf("the server advertises %q", c.Capability), detail)
		}
		return verdict(true, fmt.Sprintf("the server does not advertise %q", c.Capability), detail)
	}), "Passes when the server does not advertise capability (resources, prompts, logging, completions or tools) at initialize.")
}

func deref(r *lux.Result) lux.Result {
	if r == nil {
		return lux.Result{}
	}
	return *r
}
