package claudecode

import (
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

// Name is the driver's name in a registry.
const Name = "claude-code"

// Plugin returns the claude-code driver, ready to register:
//
//	reg.RegisterDriver(claudecode.Plugin())
func Plugin() *lux.DriverPlugin {
	return &lux.DriverPlugin{
		Name: Name,
		Doc: "Runs Anthropic's Claude Code CLI (claude) headless with stream-json input and output, " +
			"in an isolated config and temp directory per run; questions (AskUserQuestion) and " +
			"permission requests become interrupts answered by the case's answerer.",
		Parse:      driver.Parser(Parse),
		Experiment: driver.Experiment("claudecode", ExperimentVersion, Prepare, IdentityOf),
	}
}
