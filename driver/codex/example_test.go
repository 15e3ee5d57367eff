package codex_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/codex"
	"github.com/luxeval/lux/orchestrator"
)

// The mode decides what a case may require of the agent.
func Example() {
	reg := lux.NewRegistry()
	if err := reg.RegisterDriver(codex.Plugin()); err != nil {
		panic(err)
	}
	p, _ := reg.Driver("codex")
	for _, raw := range []string{
		`{}`,
		`{"mode": "app-server", "approvalPolicy": "untrusted"}`,
		`{"mode": "exec", "approvalPolicy": "untrusted", "sandbox": "none"}`,
	} {
		cfg, err := p.Parse(json.RawMessage(raw))
		if err != nil {
			fmt.Println("invalid:", errors.Is(err, lux.ErrInvalidConfig))
			for _, e := range lux.ProblemsOf(err) {
				fmt.Println("  ", e)
			}
			continue
		}
		rt := cfg.Runtime()
		fmt.Println(rt.Commands, rt.Capabilities, "ask:", orchestrator.CheckCapabilities("codex", rt, []lux.Capability{lux.CanAsk}) == nil)
	}
	// Output:
	// [codex] [usage tool-events] ask: false
	// [codex] [usage tool-events ask approve] ask: true
	// invalid: true
	//    sandbox: unknown value "none" (use one of: read-only, workspace-write, danger-full-access)
	//    approvalPolicy: "untrusted" needs someone to approve, and exec mode cannot ask (use mode "app-server" to have approvals answered, or leave approvalPolicy out)
}
