package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/modeltest"
)

func modeltestCommand() command {
	return command{
		name:    "modeltest",
		args:    "serve -script FILE [-addr 127.0.0.1:0]",
		summary: "serve a scripted model on 127.0.0.1, to run the real agent CLIs offline",
		doc: `lux modeltest serve answers the model requests of the real Claude Code and
Codex CLIs with the turns of a script, on a loopback address, until
interrupted (Ctrl-C): a suite of the real CLIs runs offline, without an API
key, and every run gets the same model answers. It prints the base URL,
the environment that points Claude Code at it, the flags that point Codex
at it, and a -driver value for each; each request is logged on stderr.

The script is a JSON array of turns, one per model response (the JSON form
of package modeltest's Script): thinking, text, tool calls in the CLI's
own tool names, usage, and injected failures:

  [{"text": "I'll write the file.",
    "tool_calls": [{"name": "Write", "input": {"file_path": "hello.txt", "content": "hi\n"}}],
    "usage": {"input_tokens": 1000, "output_tokens": 50}},
   {"text": "Done."}]

Turn i answers a request whose history holds i model responses, so every
run that starts afresh gets the script from its first turn: one server
serves every run of a suite, one at a time or at once.`,
		setup: modeltestFlags,
	}
}

func modeltestFlags(fs *flag.FlagSet) action {
	script := fs.String("script", "", "the script: a JSON array of turns (required)")
	addr := fs.String("addr", "127.0.0.1:0", "the loopback address and port to listen on (port 0: any free port)")
	return func(ctx context.Context, e *env, args []string) int {
		if len(args) == 0 || args[0] != "serve" {
			return e.usageError("modeltest", "give a subcommand: serve")
		}
		// Flags may follow the subcommand: lux modeltest serve -script FILE.
		if err := fs.Parse(args[1:]); err != nil {
			return e.usageError("modeltest", "%v", err)
		}
		if fs.NArg() > 0 {
			return e.usageError("modeltest", "serve takes no arguments, got %q", fs.Args())
		}
		if *script == "" {
			return e.usageError("modeltest", "-script: required: a JSON array of turns")
		}
		return serveModel(ctx, e, *script, *addr)
	}
}

// readScript reads a script file strictly: an unknown field is an error.
func readScript(path string) (modeltest.Script, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-script: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s modeltest.Script
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("-script %s: not a script (a JSON array of turns): %w", path, err)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("-script %s: %w", path, err)
	}
	return s, nil
}

func serveModel(ctx context.Context, e *env, path, addr string) int {
	script, err := readScript(path)
	if err != nil {
		e.errorf("modeltest: %v", err)
		return ExitUsage
	}
	logf := func(format string, args ...any) { fmt.Fprintf(e.stderr, format+"\n", args...) }
	srv, err := modeltest.NewServer(script, modeltest.WithAddr(addr), modeltest.WithLogf(logf))
	if err != nil {
		e.errorf("%v", err)
		return ExitUsage
	}
	writeServeHelp(e.stdout, srv, path, len(script))
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		e.errorf("modeltest: closing: %v", err)
	}
	n := len(srv.Requests())
	fmt.Fprintf(e.stderr, "modeltest: stopped after %s\n", plural(n, "request"))
	if err := srv.Err(); err != nil {
		e.errorf("%v", err)
	}
	return ExitOK
}

// writeServeHelp says where the server is and how to point each CLI, and
// its lux driver, at it, in one write: a program reading the output sees
// all of it or none.
func writeServeHelp(out io.Writer, srv *modeltest.Server, path string, turns int) {
	w := new(bytes.Buffer)
	defer func() { _, _ = out.Write(w.Bytes()) }()
	fmt.Fprintf(w, "modeltest: serving %s (%s) at %s until interrupted (Ctrl-C)\n\n", path, plural(turns, "turn"), srv.URL())
	env := srv.ClaudeCodeEnv()
	fmt.Fprintln(w, "Claude Code: set in its environment")
	for _, kv := range env {
		fmt.Fprintf(w, "  export %s\n", kv)
	}
	claudeEnv := map[string]string{}
	for _, kv := range env[1:] { // the base URL is the driver's baseUrl
		k, v, _ := strings.Cut(kv, "=")
		claudeEnv[k] = v
	}
	fmt.Fprintf(w, "  lux: -driver '%s'\n\n", mustJSON(lux.PluginRef{
		Name: "claude-code", Config: map[string]any{"baseUrl": srv.URL(), "env": claudeEnv},
	}))
	fmt.Fprintln(w, "Codex: add after `codex exec`")
	fmt.Fprintf(w, "  %s\n", shellJoin(srv.CodexArgs()))
	fmt.Fprintf(w, "  lux: -driver '%s'\n", mustJSON(lux.PluginRef{
		Name: "codex", Config: map[string]any{"model": "gpt-5.5", "provider": map[string]any{"id": "modeltest", "baseURL": srv.OpenAIBaseURL()}},
	}))
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // strings and maps of strings always encode
	}
	return string(b)
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
