package cursor_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/cursor"
	"github.com/luxeval/lux/orchestrator"
)

func Example() {
	reg := lux.NewRegistry()
	if err := reg.RegisterDriver(cursor.Plugin()); err != nil {
		panic(err)
	}
	plugin, _ := reg.Driver(cursor.Name)

	cfg, err := plugin.Parse(json.RawMessage(`{"model": "auto", "idleTimeout": "15m"}`))
	if err != nil {
		panic(err)
	}
	rt := cfg.Runtime()
	fmt.Println(rt.Commands, rt.Capabilities, rt.Model)

	// A case that needs to ask the user questions cannot run on it.
	err = orchestrator.CheckCapabilities(cursor.Name, rt, []lux.Capability{lux.CanAsk})
	fmt.Println(errors.Is(err, orchestrator.ErrMissingCapability))

	// Every problem of a config is named, with how to fix it.
	_, err = plugin.Parse(json.RawMessage(`{"approval": "ask", "extraArgs": ["--resume", "abc"]}`))
	fmt.Println(err)
	// Output:
	// [cursor-agent] [tool-events] auto
	// true
	// cursor: lux: invalid config:
	//   - approval: unknown approval "ask" (use "force" or "reject")
	//   - extraArgs[0]: --resume is set by the driver (each run starts a new chat; resuming is not supported)
}
