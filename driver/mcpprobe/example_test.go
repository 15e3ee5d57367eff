package mcpprobe_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/mcpprobe"
)

// Probe a server that runs already, over streamable HTTP on 127.0.0.1:
// list its tools, call one, and read what it answered.
func Example() {
	server := mcp.NewServer(&mcp.Implementation{Name: "calc", Version: "0.1.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Adds a and b."}, func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
		return nil, addOut{Sum: in.A + in.B}, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer ts.Close()

	cfg, err := mcpprobe.Plugin().Parse(json.RawMessage(`{"url": "` + ts.URL + `",
		"probe": [{"op": "list-tools"}, {"op": "call", "tool": "add", "args": {"a": 2, "b": 3}}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	ws, _ := os.MkdirTemp("", "probe")
	defer os.RemoveAll(ws)
	s, err := cfg.Start(ctx, lux.StartInfo{Workspace: ws, Stderr: os.Stderr})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	for {
		ev, err := s.Next(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		switch {
		case ev.Type == lux.EventReady:
			fmt.Println("ready:", ev.Ready.Detail["serverName"], ev.Ready.AgentVersion)
		case ev.Type == lux.EventProgress && ev.Progress.ToolResult != nil:
			r := ev.Progress.ToolResult
			fmt.Printf("%s %s: %v (isError %v)\n", ev.Progress.Kind, r.Name, r.StructuredContent, r.IsError)
		case ev.Type == lux.EventProgress && ev.Progress.ToolCall != nil:
			fmt.Println(ev.Progress.Kind, ev.Progress.ToolCall.Name, ev.Progress.ToolCall.Input)
		case ev.Type == lux.EventProgress:
			fmt.Println(ev.Progress.Kind)
		default:
			fmt.Println(ev.Type)
		}
		if ev.Terminal() {
			return
		}
	}
	// Output:
	// ready: calc 0.1.0
	// mcp-init
	// mcp-tools-list
	// tool-call add map[a:2 b:3]
	// tool-result add: map[sum:5] (isError false)
	// done
}
