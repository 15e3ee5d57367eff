// Package harness is the text model the harness itself uses: one call with
// a system prompt and a prompt, answered with text, token usage, the cost
// when it is reported, and the model that answered. The persona answerer
// plays the user with it and the rubric assertion judges with it.
//
// Two providers are built in, and both use a local agent CLI as a plain
// model, so that a user's existing key or login works:
//
//   - "claude-code": claude -p --output-format json, with no tools, no
//     slash commands, no MCP servers, no session persistence, no user
//     settings or hooks, in a fresh temporary working directory and config
//     directory, the prompt on standard input.
//   - "codex": codex exec --json with a read-only sandbox, ephemeral, no
//     user config or rules, no web search, no MCP servers, in a fresh
//     temporary working directory and CODEX_HOME.
//
// Each call runs in its own process group, is stopped (the whole group) at
// its timeout or when its context ends, keeps a bounded amount of output,
// and fails with the CLI's own message ("claude exited 1: ...").
//
// A program can plug its own Model (an HTTP client, a cache, a fake) into
// the plugins that take a Factory.
//
// # Configuration
//
// Config is the JSON object that persona and rubric configs embed and that
// a project file declares once as "harness":
//
//	{"provider": "claude-code", "model": "claude-haiku-4-5", "effort": "low", "timeout": "2m"}
//
// A plugin's own fields win over the project's; a plugin that names another
// provider drops the project's model, command, effort and env (see Inherit).
//
// A fresh config directory has no login in it: the CLI authenticates with
// the key in the environment (ANTHROPIC_API_KEY, OPENAI_API_KEY or
// CODEX_API_KEY). To use a CLI login instead, set "userConfig": true; the
// user's settings, hooks and MCP servers stay disabled by the flags.
package harness
