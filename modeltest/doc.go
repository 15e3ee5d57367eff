// Package modeltest is a scripted model server for testing coding agents
// offline. It listens on 127.0.0.1 (a free port), speaks enough of the
// Anthropic Messages API and the OpenAI Responses API for the real Claude
// Code and Codex CLIs, answers each model request with the next turn of a
// Script, records every request for assertions, and injects errors on
// demand.
//
// # Scripts and turns
//
// A Script is a list of Turns; a Turn is one model response: thinking text,
// assistant text, tool calls with their inputs, and usage numbers.
//
//	srv := modeltest.Start(t, modeltest.Script{
//		{Text: "I'll write the file.", ToolCalls: []modeltest.ToolCall{
//			{Name: "Write", Input: map[string]any{"file_path": "hello.txt", "content": "hi\n"}},
//		}, Usage: modeltest.Usage{InputTokens: 1000, OutputTokens: 50}},
//		{Text: "done"},
//	})
//
// The server keeps no conversation state: it chooses the turn from the
// request alone, by counting the model responses already in the history the
// request carries. Turn i answers a request whose history holds i model
// responses, so a retried request gets the same turn again:
//
//   - Anthropic Messages: the runs of "assistant" messages in messages
//     (Claude Code merges the blocks of one response into one message, and
//     puts "system" messages in the history too; they do not count).
//   - OpenAI Responses: the maximal runs of model-produced items in input
//     (assistant messages, reasoning items and *_call items; a
//     *_call_output or a user message ends a run).
//
// A script spans user turns: in a multi-turn session the second prompt's
// first request continues with the next turn of the script. Requests that
// start a fresh history, such as Claude Code's subagents, start again at
// turn 0, so give each agent run its own Server. A request past the end of
// the script is answered with HTTP 400 and reported by Server.Err.
//
// # Injected failures and retries
//
// A Turn's Fail field makes requests for it fail: an HTTP error status with
// the vendor's JSON error body (400, 429, 500, 529, ...), a stream cut
// cleanly or dropped abruptly after some events, a stall, or an error event
// inside the stream. CLIs retry, and a retry asks for the same turn, so a
// Failure's Times says how many attempts fail before the turn's content is
// served; that attempt counter is the server's only state. Behaviour seen
// with Claude Code 2.1.328 and Codex 0.169.0:
//
//   - Claude Code retries 5xx and 529 with backoff (about 0.5 s, then 1 s,
//     ...; CLAUDE_CODE_MAX_RETRIES, default 10) and re-sends a 400 a few
//     times with fewer features. A stream cut or dropped after some
//     events, or ended by an error event, is retried as a stream; a stream
//     that ends before its first event is re-sent with "stream": false,
//     which the server answers with a plain JSON message.
//   - Codex retries 5xx, cut, dropped and failed streams ("Reconnecting...
//     n/5"; see the model provider's request_max_retries and
//     stream_max_retries), and gives up on a 429 at once. Codex keeps the
//     items it received before a cut and sends them in the retry, which then
//     asks for the next turn: cut a Codex stream before its first
//     response.output_item.done event (After 2 or less) to retry the same
//     turn.
//
// # Side calls and other endpoints
//
// Model requests outside the main conversation (Claude Code's quota probe,
// title and topic requests to its small model) are side calls: they are
// answered with a short text and use no turn (see DefaultSideCall and
// WithSideCalls). With the settings below the CLIs send none. The server
// also answers POST .../v1/messages/count_tokens and GET .../models; any other
// request is answered with 404, and a proxy request with 403. All are
// recorded.
//
// # Recorded requests
//
// Server.Requests returns every request in arrival order with its headers,
// body and a decoded view common to both APIs: model, system prompt,
// messages, tools offered, the turn chosen and the attempt number, and the
// answer's status and injected failure. Request.ToolResults,
// Request.ToolResult and Request.UserText help assert what reached the
// model, e.g. that a command's output or a user's answer was sent back.
//
// # Pointing Claude Code at the server
//
// Claude Code POSTs to ANTHROPIC_BASE_URL + "/v1/messages?beta=true"; a base
// path prefix is allowed. Run it in the workspace with
// Server.ClaudeCodeEnv added to its environment, plus a per-run config
// directory and, as root, IS_SANDBOX=1 for bypassPermissions:
//
//	ANTHROPIC_BASE_URL=<srv.URL()> ANTHROPIC_API_KEY=sk-modeltest
//	DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
//	CLAUDE_CONFIG_DIR=<run>/claude IS_SANDBOX=1 TMPDIR=<run>/tmp HOME=<run>/home
//	claude -p "PROMPT" --output-format stream-json --verbose \
//		--permission-mode bypassPermissions --no-session-persistence </dev/null
//
// A HOME without shell start-up files keeps the Bash tool's shell snapshot
// fast (seconds are spent in a user's rc files otherwise). Tool names are
// Claude Code's: Write {"file_path", "content"}, Bash {"command",
// "description"}, Edit, Read.
//
// # Pointing Codex at the server
//
// Codex POSTs to its provider's base_url + "/responses"; Server.CodexArgs
// gives the flags that declare the server as the provider, to be put after
// "codex exec":
//
//	mkdir -p <run>/codex-home
//	CODEX_HOME=<run>/codex-home codex exec --json --skip-git-repo-check \
//		-c model_provider=modeltest \
//		-c 'model_providers.modeltest={name="modeltest",base_url="<srv.URL()>/v1",wire_api="responses"}' \
//		-c analytics.enabled=false --disable plugins \
//		-m gpt-5.5 --sandbox workspace-write --ephemeral "PROMPT" </dev/null
//
// Use a model slug Codex knows (gpt-5.5) so that it offers apply_patch. The
// shell tool is exec_command {"cmd": "...", "login": false}; apply_patch is
// a custom (freeform) tool, so a ToolCall named "apply_patch" with a string
// Input (the patch text) is sent as a custom_tool_call.
//
// Server.ProxyEnv gives proxy variables that route any other traffic of a
// CLI to the server, which refuses and records it.
package modeltest
