// Package mcpprobe is the mcp-probe driver: it evaluates an MCP server
// without a model. It starts the server (stdio) or reaches one that
// already runs (streamable HTTP), runs a probe — a list of steps that
// list the server's tools and call them — and reports what the server
// said as lux events, so that assertions can grade the server the way
// they grade an agent: does it start, say who it is, list the tools it
// should, and do its tools answer correctly?
//
// The MCP protocol is spoken by the official Go SDK
// (github.com/modelcontextprotocol/go-sdk); this package owns the server's
// process and turns the protocol into events.
//
// # Config
//
//	{"command": "./my-server", "args": ["--root", "${ARTIFACTS_DIR}"],
//	 "probe": [{"op": "list-tools"}, {"op": "call", "tool": "add", "args": {"a": 2, "b": 3}}]}
//
// command, args, cwd (relative to the workspace; default the workspace),
// env, and inheritEnv (a list of harness variables to pass on, or true
// for the whole environment) start a server spoken to over stdio;
// ${ARTIFACTS_DIR} (the workspace) and ${RUN_DIR} (the run's record
// directory) are expanded in args, env values, cwd and headers. Unless
// inheritEnv is true, the server's environment is only env, the named
// variables and PATH=/usr/local/bin:/usr/bin:/bin (unless one of them sets
// PATH): a server started with npx needs "inheritEnv": ["PATH", "HOME"].
// url (with headers, and headersFromEnv for credentials kept out of the
// case) reaches a running server instead. probe defaults to one list-tools;
// startupTimeout (default 30s) bounds the start and the initialize
// handshake, stepTimeout (60s) each step, maxListPages (100) the pages of
// one list-tools, maxMessageBytes (10,000,000) one message on stdout.
//
// # Events
//
// A probe yields, in order:
//
//   - ready: agentId "mcp-probe", agentVersion the server's version, detail
//     serverName, serverVersion, protocolVersion, transport and target;
//   - progress mcp-init ([Init]): server info, protocol version,
//     capabilities and instructions;
//   - for list-tools, progress mcp-tools-list ([ToolsList]): every tool of
//     every page; a server that repeats a cursor, or lists more than
//     maxListPages pages, fails the run;
//   - for call, progress tool-call (toolUseId "probe-N" for step N) and
//     tool-result with the same id: content as the server sent it,
//     structured content (when it is an object), isError, the text blocks
//     joined by newlines, and the duration;
//   - done, with a [Summary].
//
// A tool that returns isError is a result like any other — the assertions
// grade it — not a failed run. A protocol or transport failure (the server
// cannot start, exits, writes something other than JSON-RPC on stdout,
// answers a request with an error, or does not answer in time) ends the
// run with an error event whose reason says what happened, with the tail
// of the server's stderr. The server's stderr is kept in the run's record.
//
// A failure is blamed on its cause: an answer the SDK refuses (an
// unsupported protocol version, say) is reported as such, and the
// server's exit only as context after it; "the server exited" is the
// reason only when the connection was lost. Call arguments keep their
// numbers as written ([Args]).
//
// The server runs in its own process group, which is stopped when the
// probe ends, on a timeout and when the run is cancelled, so nothing it
// spawned survives it, in the order the MCP specification gives
// ([driver.Process.Stop]): stdin closed and a grace to exit, then SIGTERM,
// then SIGKILL. The time limits and graces run on the clock of Start's
// context (the system's, unless a test gave a manual one). Collect returns the files in the workspace, for a
// server whose tools write there.
//
// The probe raises no interrupts (Runtime declares only tool-events). For
// controlled experiments its identity holds the SHA-256 of the server's
// executable and of every file its arguments name (a script, say), so two
// arms that ran different servers are never pooled.
package mcpprobe
