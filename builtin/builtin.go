// Package builtin registers every plugin that ships with lux: the drivers
// (subprocess, claude-code, codex, cursor, mcp-probe), the scripted
// persona and terminal answerers, the core assertions, the MCP server assertions and the rubric
// judge. It is a convenience: a program that wants fewer plugins, or its
// own, registers them one by one instead.
package builtin

import (
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/persona"
	"github.com/luxeval/lux/answerer/scripted"
	"github.com/luxeval/lux/answerer/terminal"
	"github.com/luxeval/lux/assertion"
	mcpassertion "github.com/luxeval/lux/assertion/mcp"
	"github.com/luxeval/lux/assertion/rubric"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/driver/codex"
	"github.com/luxeval/lux/driver/cursor"
	"github.com/luxeval/lux/driver/mcpprobe"
	"github.com/luxeval/lux/driver/subprocess"
)

// Drivers returns the built-in driver plugins.
func Drivers() []*lux.DriverPlugin {
	return []*lux.DriverPlugin{subprocess.Plugin(), claudecode.Plugin(), codex.Plugin(), cursor.Plugin(), mcpprobe.Plugin()}
}

// Answerers returns the built-in answerer plugins.
func Answerers() []*lux.AnswererPlugin {
	return []*lux.AnswererPlugin{scripted.Plugin(), persona.Plugin(), terminal.Plugin()}
}

// Register adds every built-in plugin to reg. It fails, registering
// nothing more, at the first name reg already holds.
func Register(reg *lux.Registry) error {
	for _, d := range Drivers() {
		if err := reg.RegisterDriver(d); err != nil {
			return err
		}
	}
	for _, a := range Answerers() {
		if err := reg.RegisterAnswerer(a); err != nil {
			return err
		}
	}
	if err := assertion.Register(reg); err != nil {
		return err
	}
	if err := mcpassertion.Register(reg); err != nil {
		return err
	}
	return reg.RegisterAssertion(rubric.Plugin())
}

// Registry returns a new registry holding every built-in plugin.
func Registry() *lux.Registry {
	reg := lux.NewRegistry()
	if err := Register(reg); err != nil {
		panic("builtin: " + err.Error()) // the built-ins' names are distinct
	}
	return reg
}
