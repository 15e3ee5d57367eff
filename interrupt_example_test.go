package lux_test

import (
	"fmt"

	"github.com/luxeval/lux"
)

// Agent versions are recorded normalized, with the raw string beside them.
func ExampleNewReady() {
	for _, raw := range []string{"2.1.328 (Claude Code)", "codex-cli 0.169.0", "dev"} {
		r := lux.NewReady("agent", raw, "", nil)
		fmt.Printf("%q %q\n", r.AgentVersion, r.AgentVersionRaw)
	}
	// Output:
	// "2.1.328" "2.1.328 (Claude Code)"
	// "0.169.0" "codex-cli 0.169.0"
	// "dev" ""
}

// An answerer reads an approval the same way whichever driver asked, and
// whether the interrupt is fresh from a driver or read back from a record.
func ExampleInterrupt_Approval() {
	fromDriver := lux.Interrupt{Kind: lux.Approve, ID: "a1", Request: &lux.Approval{
		Action: lux.ActionCommand, Tool: "Bash", Command: "rm -rf data"}}
	fromRecord := lux.Interrupt{Kind: lux.Approve, ID: "a2", Request: map[string]any{
		"action": "command", "tool": "command_execution", "command": "rm -rf data", "noDenyReason": true}}
	for _, in := range []lux.Interrupt{fromDriver, fromRecord} {
		a, _ := in.Approval()
		fmt.Println(a.Action, a.Tool, a.Command, a.NoDenyReason)
	}
	// Output:
	// command Bash rm -rf data false
	// command command_execution rm -rf data true
}
