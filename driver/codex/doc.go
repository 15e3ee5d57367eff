// Package codex is the lux driver for OpenAI's Codex CLI (tested with
// codex-cli 0.169.0; install it with `npm install -g @openai/codex`).
//
// Register it with reg.RegisterDriver(codex.Plugin()) and name it in a case:
//
//	"driver": {"name": "codex", "config": {"mode": "app-server", "model": "gpt-5.5"}}
//
// # Two modes
//
// Mode "exec" (the default) runs `codex exec --json` once: one
// non-interactive turn with the prompt as its argument and stdin closed. It
// is the simplest and fastest way to run the CLI, but the agent cannot ask
// the user anything: its request_user_input tool reports that it is
// unavailable, and the approval policy is "never". Its Runtime declares
// the "usage" and "tool-events" capabilities only, so a case that
// requires "ask" or "approve" is refused before it runs.
//
// Mode "app-server" runs `codex app-server` and drives one turn over its
// JSON-RPC protocol on stdio (initialize, thread/start, turn/start). The
// CLI's requests become interrupts that the run's answerer answers before
// the agent continues: request_user_input questions (ask; the answer text
// goes to every question, or a JSON object maps question ids to answers),
// command and file-change approvals (approve: accept or decline), extra
// permissions (approve), MCP elicitations (ask) and dynamic tool calls
// (custom). Its Runtime adds "ask", and "approve" unless the approval
// policy is "never". Use approvalPolicy "untrusted" to have every
// command that is not known to be safe approved, "on-request" (the
// default here) to let the model ask when it needs to leave the sandbox.
//
// # Each run
//
// Every run gets its own CODEX_HOME, <run dir>/codex-home, outside the
// workspace so that it is not collected as artifacts. The driver writes
// its config.toml: the model, the sandbox, the reasoning effort, the
// provider when one is configured (an OpenAI Responses API endpoint, with
// the name of the variable holding its key), and the switches that keep
// the CLI off the network except for its model provider (analytics off,
// plugins disabled: without them the CLI reaches github.com and
// chatgpt.com). Other settings go on the command line as -c key=value from
// the config's "config" map. After the run only config.toml is kept,
// unless keepHome is set. The CLI runs in the workspace, in its own
// process group, with NO_COLOR=1; exec also gets --skip-git-repo-check and
// --ephemeral, app-server an ephemeral thread. The whole process tree is
// stopped once the turn ends, on the idle timeout and on Quiesce; the
// tail of the CLI's stderr is kept; the artifacts are the workspace's
// regular files, symbolic links never followed.
//
// # Events
//
// Both modes report the same events: ready when the thread starts (with
// the CLI's version and the thread id), agent messages and reasoning,
// tool calls and their results for shell commands (tool
// "command_execution", failed when the command exits non-zero or is
// declined), patches ("file_change"), MCP tools (by tool name) and web
// searches, usage, and done or error. Token usage follows the CLI's own
// counts: the CLI's input count includes the tokens read from and written
// to the prompt cache, so lux's input is what remains once those are
// taken out, and they are the cache reads and cache creation; exec
// reports the turn's total, app-server each model call and the total. A failed turn ends the run in error with the CLI's
// message; errors the CLI retries are progress of kind "codex-error", and
// a CLI that does nothing but retry (an unreachable provider) is stopped
// once that has lasted the idle timeout.
package codex
