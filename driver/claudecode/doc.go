// Package claudecode is the lux driver for Anthropic's Claude Code CLI
// (claude): it runs the real CLI headless in a run's workspace and turns
// what the CLI prints into lux events.
//
// Register it with [Plugin] under the name "claude-code" and configure it
// with a [Config]; the CLI is installed with
//
//	npm install -g @anthropic-ai/claude-code
//
// # How the CLI is run
//
// Every run launches
//
//	claude -p --output-format stream-json --verbose \
//	    --input-format stream-json --permission-prompt-tool stdio \
//	    --include-partial-messages --no-session-persistence \
//	    [--model M] [--effort E] [--permission-mode P] [--allowedTools T]... \
//	    [--disallowedTools T]... [--plugin-dir D]... [--add-dir D]... \
//	    [--settings S] [--agent A] [--max-turns N] [extraArgs...]
//
// in the workspace, with the process in its own process group. Why:
//
//   - stream-json output prints one JSON object per line for everything the
//     CLI does; with -p it requires --verbose.
//   - stream-json input with the stdio permission prompt tool is the only
//     mode in which the CLI offers its AskUserQuestion tool, and it sends
//     every permission check its permission mode does not settle to the
//     harness as a control request on stdout, waiting for the control
//     response on stdin. The prompt is the first user message on stdin;
//     stdin stays open for the answers and is closed after the result
//     line, which makes the CLI exit.
//   - --include-partial-messages adds the raw API stream events, from which
//     the driver takes each API response's final usage (the assistant lines
//     carry only the output count of the response's start).
//   - --no-session-persistence keeps transcripts out of the config dir.
//
// Each run gets its own CLAUDE_CONFIG_DIR (<run dir>/claude-code/config)
// and TMPDIR (<run dir>/claude-code/tmp, removed on Close), outside the
// workspace so that neither is collected as artifacts; the user's
// ~/.claude is never read or written. The environment also gets
// DISABLE_TELEMETRY, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC,
// DISABLE_AUTOUPDATER and DISABLE_ERROR_REPORTING, so that the CLI talks
// to nothing but its API, and IS_SANDBOX=1 with bypassPermissions, which
// the CLI refuses as root otherwise. [Config.BaseURL] and
// [Config.APIKeyEnv] point it at a gateway or a scripted model server.
// The CLI does read the CLAUDE.md files of the workspace's parent
// directories: keep the runs root out of directories that have one.
//
// # Events
//
// The system/init line is the ready event (agent "claude-code", the CLI's
// version and model, its session id, cwd, permission mode and tools in
// Detail). Then:
//
//   - text, thinking and tool_use blocks of assistant lines become
//     agent-message, reasoning and tool-call progress; tool_result blocks
//     of user lines become tool-result progress, correlated with their call
//     by tool use id (progress ids "tc-<id>" and "tr-<id>"), with the
//     call's name, is_error as IsError and the tool's structured result;
//   - each API response's usage is reported once, as a usage progress
//     event with id "usage-<message id>", when the response ends;
//   - system/permission_denied, system/api_retry and the CLI's own
//     "API Error" messages become permission-denied, api-retry and
//     api-error progress; lines the driver does not translate are kept as
//     claude-event progress;
//   - a can_use_tool control request becomes an interrupt whose id is the
//     tool use id: for AskUserQuestion an ask (Question holds the
//     questions, Context their options), for any other tool an approve
//     (Request holds the tool and its input). The answer goes back as the
//     control response: the ask's text as the answer to every question
//     (or, when the text is a JSON object, the answers by question), an
//     approval as allow with the input unchanged, a denial as deny with
//     the answer's reason, which the model sees;
//   - the result line ends the run: done with the CLI's total usage,
//     total_cost_usd (the CLI's own estimate from its price table) and
//     num_turns, or, when is_error is set (an API error, the turn limit),
//     an error event with the CLI's message, preceded by a result progress
//     event with the CLI's report.
//
// A CLI that exits without a result line ends the run in error with the
// tail of its stderr.
//
// # Experiments
//
// The driver supports controlled experiments: [Prepare] stops the host
// environment from being inherited, and [IdentityOf] records the CLI's
// version, the SHA-256 of its executable and the hashes of the settings
// and plugin directories the config names.
package claudecode
