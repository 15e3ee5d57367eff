package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion/mcp"
	"github.com/luxeval/lux/driver/mcpprobe"
)

// Grade the tools a server listed, as the mcp-probe driver records them.
func Example() {
	p := lux.NewProgress("mcp-tools-list-1", mcpprobe.KindToolsList, &mcpprobe.ToolsList{
		Tools: []mcpprobe.ListedTool{{Name: "add_note"}, {Name: "list_notes"}}, Pages: 1,
	})
	run := &lux.Run{Events: []lux.Event{{Type: lux.EventProgress, Progress: &p}}}

	reg := lux.NewRegistry()
	if err := mcp.Register(reg); err != nil {
		fmt.Println(err)
		return
	}
	for _, cfg := range []string{`{"tool": "add_note"}`, `{"tool": "delete_all"}`} {
		plugin, _ := reg.Assertion("tool-listed")
		check, err := plugin.Parse(json.RawMessage(cfg))
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := check.Evaluate(context.Background(), run)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Passed, res.Comment)
	}
	// Output:
	// true "add_note" is listed
	// false "delete_all" is not among the 2 listed tools
}
