// Command mcp evaluates an MCP server without a model: it builds
// notesserver (a small MCP server in this directory), probes it with the
// mcp-probe driver — list its tools, call them — and grades what it
// answered with the MCP and tool-result assertions:
//
//	go run ./examples/mcp
//
// No API key is needed: the probe speaks MCP itself. To evaluate an agent
// that uses the same server, give Claude Code the server in an MCP config
// (see "Evaluating an MCP server" in docs/drivers.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/builtin"
	"github.com/luxeval/lux/driver/mcpprobe"
	"github.com/luxeval/lux/examples/internal/exrun"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

func main() {
	root := flag.String("runs", record.DefaultRoot, "directory the run records go to")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, *root); err != nil {
		fmt.Fprintln(os.Stderr, "mcp:", err)
		os.Exit(1)
	}
}

// probe is a driver ref that starts server and runs steps.
func probe(server string, steps ...mcpprobe.Step) *lux.PluginRef {
	return &lux.PluginRef{Name: mcpprobe.Name, Config: mcpprobe.Config{Command: server, Probe: steps}}
}

func call(tool string, args map[string]any) mcpprobe.Step {
	return mcpprobe.Step{Op: mcpprobe.OpCall, Tool: tool, Args: args}
}

var listTools = mcpprobe.Step{Op: mcpprobe.OpListTools}

// cases is the suite; every case should pass.
func cases(server string) []*lux.Case {
	return []*lux.Case{
		{
			ID:     "server-surface",
			Prompt: "Start, say who you are and list your tools.",
			Driver: probe(server, listTools),
			Assertions: []lux.AssertionSpec{
				assertion.RunSucceeded(),
				{Type: "server-info-equals", Config: map[string]any{"server": "notes", "version": "1.0.0"}},
				{Type: "tool-listed", Config: map[string]any{"tool": "add_note"}},
				{Type: "tool-listed", ID: "no-delete", Config: map[string]any{"tool": "delete_all", "expected": false}},
				{Type: "tools-listed-count", Config: map[string]any{"min": 3, "max": 3}},
				{Type: "capability-absent", Config: map[string]any{"capability": "resources"}},
			},
		},
		{
			ID:     "add-note",
			Prompt: "Save a shopping list.",
			Driver: probe(server, call("add_note", map[string]any{"title": "groceries", "body": "- milk\n- eggs"}), call("list_notes", nil)),
			Assertions: []lux.AssertionSpec{
				assertion.ToolInvocation("add_note", assertion.Input(assertion.Match{JSONPointer: "/title", Equals: "groceries"}),
					assertion.Output(assertion.Match{JSONPointer: "/path", Equals: "notes/groceries.md"})),
				assertion.ToolResultJSONPointerEquals("list_notes", "/titles", []string{"groceries"}),
				assertion.NoErrorResults(),
				assertion.FileRegexSet("notes/groceries.md", assertion.ModeAll, []string{`(?m)^- milk$`, `(?m)^- eggs$`}),
			},
		},
		{
			ID:     "count-words",
			Prompt: "Count the words of a sentence.",
			Driver: probe(server, call("count_words", map[string]any{"text": "the quick brown fox"})),
			Assertions: []lux.AssertionSpec{
				assertion.ToolResultJSONPointerEquals("count_words", "/words", 4),
			},
		},
		{
			// A tool that refuses its input answers with isError: a result
			// to grade, not a failed run.
			ID:     "rejects-bad-title",
			Prompt: "Try to write outside the notes directory.",
			Driver: probe(server, call("add_note", map[string]any{"title": "../escape", "body": "x"})),
			Assertions: []lux.AssertionSpec{
				assertion.RunSucceeded(),
				assertion.ToolResultIsError("add_note"),
				assertion.ToolResultContains("add_note", "invalid title"),
				assertion.GlobCount("**/escape*", assertion.Max(0)),
			},
		},
	}
}

func run(ctx context.Context, w io.Writer, root string) error {
	// The server is built under the runs root, at the same path every
	// time, so that the runs of different invocations stay comparable.
	server, err := buildServer(ctx, filepath.Join(root, ".bin"))
	if err != nil {
		return err
	}
	o := orchestrator.New(builtin.Registry(), orchestrator.Options{
		RunsRoot:    root,
		Concurrency: 2,
		Environment: map[string]any{"example": "mcp", "goos": runtime.GOOS},
		Progress:    exrun.Progress(w),
	})
	return exrun.Suite(ctx, w, o, cases(server), "Probing notesserver (no model, no API key)...")
}

// buildServer compiles examples/mcp/notesserver into dir.
func buildServer(ctx context.Context, dir string) (string, error) {
	out, err := filepath.Abs(filepath.Join(dir, "notesserver"))
	if err != nil {
		return "", err
	}
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, ".")
	cmd.Dir = filepath.Join(filepath.Dir(file), "notesserver")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the example server: %v\n%s", err, b)
	}
	return out, nil
}
