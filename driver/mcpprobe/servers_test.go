package mcpprobe_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luxeval/lux/internal/fakeproc"
)

// The test binary doubles as the MCP servers the tests probe: with
// LUX_MCP_TEST_SERVER set it serves that server over stdio instead of
// running the tests.
func TestMain(m *testing.M) {
	kind := os.Getenv("LUX_MCP_TEST_SERVER")
	if kind == "" {
		os.Exit(m.Run())
	}
	fakeproc.Exit(serveStdio(kind))
}

// The servers, by LUX_MCP_TEST_SERVER.
const (
	serverTools    = "tools"     // add, echo, fail, getenv, touch, args; instructions; no logging capability
	serverPaged    = "paged"     // seven tools, two per page
	serverRepeat   = "repeat"    // tools/list always returns the same next cursor
	serverEndless  = "endless"   // tools/list always returns a new next cursor
	serverCrash    = "crash"     // the tool crash exits the process mid-call
	serverHang     = "hang-init" // reads stdin, never answers initialize
	serverJunk     = "junk"      // writes a log line to stdout before speaking MCP
	serverSlowTool = "slow"      // the tool slow answers only when the call is cancelled
	serverIgnore   = "ignore"    // ignores stdin's end; writes sigterm.txt at SIGTERM and keeps running
	serverOldProto = "old-proto" // answers initialize with protocol version 1999-01-01, exits at stdin's end
	serverSaveEOF  = "save-eof"  // at stdin's end takes a moment, then saves state.txt; sigterm.txt at SIGTERM
	serverWrite    = "write"     // the common tools and write, which writes the file at the path it is given
)

func serveStdio(kind string) int {
	switch kind {
	case serverHang:
		fmt.Fprintln(os.Stderr, "hang: starting, never answering")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case serverJunk:
		fmt.Println("starting the server on stdio...")
	case serverOldProto:
		return serveOldProtocol()
	case serverIgnore, serverSaveEOF:
		// Say when SIGTERM came: a server must get its stdin's end first.
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM)
		go func() {
			<-sig
			_ = os.WriteFile("sigterm.txt", []byte("SIGTERM\n"), 0o644)
			if kind == serverSaveEOF {
				os.Exit(1)
			}
		}()
	}
	// Say who is serving, for tests that check the process is gone.
	_ = os.WriteFile("server.pid", []byte(strconv.Itoa(os.Getpid())), 0o644)
	srv := newServer(kind, nil)
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "server:", err)
	}
	switch kind {
	case serverIgnore:
		select {} // outlive stdin's end, like a server stuck in a call
	case serverSaveEOF:
		// Saving takes a moment: a SIGTERM sent with stdin's end loses it.
		time.Sleep(300 * time.Millisecond)
		_ = os.WriteFile("state.txt", []byte("saved at stdin's end\n"), 0o644)
	}
	return 0
}

// serveOldProtocol speaks JSON-RPC by hand: it refuses server/discover and
// answers initialize with a protocol version no client supports, then
// reads until stdin's end and exits 0.
func serveOldProtocol() int {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || req.ID == nil {
			continue // a notification
		}
		var reply string
		switch req.Method {
		case "initialize":
			reply = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"1999-01-01","capabilities":{},"serverInfo":{"name":"old","version":"0.1"}}}`, req.ID)
		default:
			reply = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, req.ID)
		}
		fmt.Println(reply)
	}
	return 0
}

type addIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

type echoIn struct {
	Text string `json:"text"`
}

type nothing struct{}

// newServer builds the server of a kind, for stdio or streamable HTTP.
// Closing release ends the slow tool's calls, so that an HTTP server in
// the test process can shut down.
func newServer(kind string, release <-chan struct{}) *mcp.Server {
	opts := &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{}}
	switch kind {
	case serverTools:
		opts.Instructions = "Call add to add two numbers."
	case serverPaged:
		opts.PageSize = 2
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "test-" + kind, Version: "1.2.3"}, opts)
	mcp.AddTool(srv, &mcp.Tool{Name: "add", Description: "Adds a and b."}, func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
		return nil, addOut{Sum: in.A + in.B}, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Says text back."}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "fail", Description: "Always fails."}, func(context.Context, *mcp.CallToolRequest, nothing) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("the widget is broken")
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "getenv", Description: "Returns the value of the environment variable text."}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		v, ok := os.LookupEnv(in.Text)
		if !ok {
			v = "<unset>"
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: v}}}, nil, nil
	})
	if kind == serverWrite {
		mcp.AddTool(srv, &mcp.Tool{Name: "write", Description: "Writes the file at path text; says ok or the error."}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			msg := "ok"
			if err := os.WriteFile(in.Text, []byte("forged\n"), 0o644); err != nil {
				msg = err.Error()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil, nil
		})
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "touch", Description: "Writes touched.txt in its working directory."}, func(context.Context, *mcp.CallToolRequest, nothing) (*mcp.CallToolResult, any, error) {
		if err := os.WriteFile("touched.txt", []byte("touched\n"), 0o644); err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	switch kind {
	case serverTools:
		srv.AddTool(&mcp.Tool{Name: "args", Description: "Returns its arguments as they arrived.", InputSchema: map[string]any{"type": "object"}},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
			})
	case serverPaged:
		for i := range 3 {
			mcp.AddTool(srv, &mcp.Tool{Name: fmt.Sprintf("extra%d", i)}, func(context.Context, *mcp.CallToolRequest, nothing) (*mcp.CallToolResult, any, error) {
				return nil, nil, nil
			})
		}
	case serverCrash:
		mcp.AddTool(srv, &mcp.Tool{Name: "crash"}, func(context.Context, *mcp.CallToolRequest, nothing) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "panic: the crash tool crashed")
			os.Exit(3)
			return nil, nil, nil
		})
	case serverSlowTool, serverIgnore:
		mcp.AddTool(srv, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ nothing) (*mcp.CallToolResult, any, error) {
			select {
			case <-ctx.Done():
			case <-release:
			}
			return nil, nil, errors.New("slow: cancelled")
		})
	case serverRepeat, serverEndless:
		page := 0
		srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method != "tools/list" {
					return next(ctx, method, req)
				}
				page++
				cursor := "again"
				if kind == serverEndless {
					cursor = fmt.Sprintf("page-%d", page)
				}
				return &mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: fmt.Sprintf("t%d", page), InputSchema: map[string]any{"type": "object"}}}, NextCursor: cursor}, nil
			}
		})
	}
	return srv
}
