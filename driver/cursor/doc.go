// Package cursor is the lux driver for Cursor's agent CLI (cursor-agent),
// run headless: print mode, stream-json output, one prompt per run.
//
// # What it runs
//
// For each run the driver starts, in the run's workspace:
//
//	cursor-agent -p --output-format stream-json --model <model> --trust --force \
//	    [--mode plan|ask] [--sandbox enabled|disabled] [--stream-partial-output] [--approve-mcps] \
//	    --workspace <workspace> [extraArgs...] -- <prompt>
//
// Why these flags:
//
//   - Print mode (-p) and stream-json make the CLI non-interactive and
//     report every step as one JSON object per stdout line.
//   - The model is always passed (default "auto"): without it the CLI uses
//     whichever model was last chosen interactively.
//   - Trust (--trust) is needed in any directory not trusted before, or the CLI
//     exits 1 before doing anything ("skipTrust" leaves it out).
//   - Force (--force; approval "force", the default) lets shell, MCP and web tool
//     calls run; with approval "reject" they are rejected, since print mode
//     cannot ask, and the agent carries on.
//   - The prompt follows "--", so a prompt starting with "-" is not read
//     as a flag. Standard input is at end of file: the CLI reads a piped
//     stdin to its end before starting, and would wait on an open one.
//
// Flags the driver sets itself are refused in extraArgs, as are --resume
// and --continue (each run is a new chat), --api-key (use apiKeyEnv so no
// secret sits in a config) and --auto-review.
//
// # Events
//
// The system/init line becomes ready (agent id "cursor", the CLI's
// --version as the agent version, the session id, the model's display name
// and the API key source in Detail). Thinking deltas become one reasoning
// event per thought; assistant lines become agent-message events (with
// --stream-partial-output the deltas are joined and the CLI's repeated
// flushes dropped, so the trajectory is the same with or without it).
// Every tool_call becomes a tool-call and, on completion, a tool-result
// named by its kind without the "ToolCall" suffix ("shell", "read",
// "edit", "grep", ...; an MCP call by its tool name). A result other than
// success is an error result: a shell command's non-zero exit (failure),
// a rejected call, a timeout, a permission error. A call seen only
// completed still counts as a call. interaction_query lines (requests the
// CLI answered itself) and lines of other types are kept as progress of
// kinds KindInteractionQuery and KindCursorEvent; the prompt's echo is
// dropped.
//
// The result line ends the run: done, or error when it says is_error.
// Its usage (inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens,
// which map one to one onto lux.TokenUsage) is Done.Usage. Versions before
// 2026.07 print none; Done.Usage is then nil, recorded as unavailable,
// never as zero. The CLI reports no cost and no turn count. The duration,
// request id and the result text go in Done.Summary.
//
// A run the CLI ends without a result line is an error naming the exit
// status, a hint for the failures the CLI explains on stderr (untrusted
// workspace, no login, a model the plan cannot use), and the tail of
// stderr. The stderr tail is kept either way.
//
// # Capabilities
//
// Print mode is non-interactive: the driver declares neither ask nor
// approve, so a case that requires them is refused before it runs. It
// declares tool-events, and usage only when the config sets reportsUsage
// (for CLI versions that print it), because a capability is a promise a
// case may rely on and older versions keep none.
//
// # Processes
//
// The CLI leads its own process group. After the result line it gets
// resultGrace to exit by itself (some versions never do) before the group
// is stopped, even when Quiesce is called at once; a timeout, the idle
// timeout or a cancelled run stops it without delay. Every stdout line,
// not only every event, keeps the idle clock from expiring.
// The CLI also starts a detached worker-server that leaves the group and
// outlives it; every process of a run carries a unique TagEnv value in its
// environment, and Quiesce stops all of them on Linux.
//
// # Artifacts and experiments
//
// Collect lists the regular files of the workspace, never following
// symlinks. For controlled experiments the host environment is not
// inherited, and the identity holds the CLI's version and hashes of the
// user-level files that shape its behaviour (cli-config.json, mcp.json,
// hooks.json).
//
// The CLI cannot be installed everywhere and its backend protocol is
// proprietary, so the tests replay recorded stream-json through a fake
// cursor-agent (testdata/fakecursor).
package cursor
