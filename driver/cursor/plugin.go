package cursor

import (
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

// Name is the name the driver is registered under.
const Name = "cursor"

// Plugin returns the cursor driver plugin, ready to register.
func Plugin() *lux.DriverPlugin {
	return &lux.DriverPlugin{
		Name: Name,
		Doc: "Runs Cursor's agent CLI (cursor-agent) headless: print mode with stream-json output, " +
			"one prompt per run, no questions or approvals mid-run. Reports messages, reasoning, " +
			"tool calls and results, and token usage when the CLI prints it.",
		Parse:      driver.Parser(Parse),
		Experiment: experiment(),
	}
}
