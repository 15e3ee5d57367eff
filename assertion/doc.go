// Package assertion holds the built-in deterministic assertions: checks of
// what an agent left in its workspace (files, JSON values, commands that
// must succeed), of what it said (its messages), of what it did (tool
// calls, interrupts) and of what it cost (time, tokens, dollars, bytes).
//
// Each is a *lux.AssertionPlugin; All returns them and Register adds them to
// a lux.Registry. Cases refer to them by type, in JSON as flat objects such
// as {"type": "file-contains", "path": "README.md", "text": "## Usage"}, or
// in Go through the constructors (FileContains("README.md", "## Usage")),
// which return a lux.AssertionSpec. Configs are decoded strictly: an unknown
// field, a wrong type or a bad value is an error naming the field, all of
// them at once, before anything runs.
//
// # Constructors and their options
//
// A constructor takes the required fields as arguments and the others as
// options, and each constructor accepts only the options of its own
// fields: FileRegexCount("log.txt", "error", Flags("i"), Min(1)) compiles,
// FileContains("README.md", "## Usage", Flags("i")) does not, because
// file-contains has no flags. So a misplaced option is a compile error in
// Go, where in a JSON case file the same mistake is an unknown field,
// reported when the case is validated. The identity options (ID, Named,
// Weight, Threshold) are an Option, which every constructor accepts; the
// type an option function returns (FlagsOption, BoundOption, ...) names
// the assertions that take it.
//
// # Types and their fields
//
// Besides id, name, weight and threshold, which every assertion takes:
//
//	run-succeeded         (none)                       the run's exit reason is "done"
//	file-exists           path, in                     a regular file
//	file-contains         path, text, in               file (<= 10 MiB) contains text, byte for byte
//	file-matches          path, pattern, flags, in     regular expression matches the file (<= 5 MiB)
//	file-regex-count      path, pattern, flags, min, max, in
//	                                                   number of matches in range; pattern must not match ""
//	file-regex-set        path, patterns, mode, flags, in
//	                                                   all, any or none (mode) of the patterns match (<= 5 MiB)
//	glob-count            glob, min, max, in           number of regular files matching glob in range
//	json-pointer-equals   path, pointer, value, in     JSON file (<= 10 MiB) holds value at pointer
//	command-exits-zero    command, cwd, in, env, inheritEnv, timeout, shareCopy
//	                                                   sh -c command exits 0, run on a disposable copy
//	contains              text, against                the agent's messages contain text
//	not-contains          text, against                ... do not contain text
//	regex                 pattern, flags, against      ... match pattern
//	tool-called           tool, minTimes, maxTimes, by the agent called tool
//	tool-call-count       tool, min, max, by           number of tool calls in range
//	tool-called-with      tool, argsJsonPointer, argsValue | argsContains, minTimes, by
//	                                                   calls with the given arguments
//	tool-invocation       tool, result, occurrence, input, output
//	                                                   a call of tool got a result of the kind asked, input and output matching
//	tool-result-is-error  tool, expected, occurrence   a result of tool (or of any tool) has isError = expected (default true)
//	tool-result-contains  tool, text, occurrence       a result's text contains text
//	tool-result-json-pointer-equals
//	                      tool, jsonPointer, value | contains, occurrence
//	                                                   a result's value holds value at jsonPointer
//	no-error-results      allowEmpty                   no tool result has isError
//	interrupt-count       kind, min, max               number of interrupts in range
//	latency-under         max                          the agent's time
//	tokens-under          max, component, onUnavailable
//	cost-under            maxUsd, onUnavailable
//	artifact-bytes-under  max, onUnavailable
//
// # Tool results
//
// The tool-result assertions grade the tool-result events of any driver —
// the MCP tool calls of the mcp-probe driver, the shell and MCP tools of
// Claude Code, Codex and Cursor runs — so one case can hold an MCP
// server, and an agent using it, to the same checks. occurrence picks the
// results looked at: "first", "last" or "any" (defaults: last for
// tool-result-is-error and tool-result-json-pointer-equals, any for the
// others). A result's text is its text, else its content as text; its
// value, which pointers look into, is its structured content, else its
// text (or a string content) parsed as JSON, else its content. A run
// whose tool events are malformed (a payload that does not decode, a call
// or result without a name or tool use id) cannot be graded: the error
// leaves the case without a verdict. A run with no result of the tool
// fails, as no-error-results does without allowEmpty: no evidence is no
// pass.
//
// tool-invocation pairs each call of tool with its result (same tool use
// id, parent tool use id and name; a call id seen twice pairs with
// nothing), keeps the first, the last or every call (occurrence), then the
// ones whose result is of the kind asked (result: success, the default;
// error; any), and passes when one of them matches input and output: each
// a {"jsonPointer": "/path", ...} with exactly one of equals (a JSON
// value), contains (text) and matches (a regular expression, with flags),
// tested against the call's input and the result's value. Text is a
// string as is, anything else as JSON.
//
// Counts (min, max) need at least one bound and include both ends;
// tool-called defaults to minTimes 1 unless only maxTimes is given. The tool
// is named by "tool", not "name": "name" is every assertion's display name.
// by is "any" (default), "main" (calls of the main agent) or "subagent".
// against is "transcript-final" (default: the agent's last message) or
// "transcript-all" (all its messages joined by newlines); answers given to
// the agent are not part of the transcript. kind is ask, approve or custom.
// Durations (max, timeout) are Go durations ("90s", "2m") or milliseconds.
//
// # Paths
//
// A path (and glob-count's glob, command-exits-zero's cwd) is relative to
// its root, named by "in": "workspace" (default; Run.Workspace, the agent's
// working directory) or "run" (Run.Dir, the run's record directory).
//
// The agent controls the workspace, so nothing in it is trusted. A path that
// is absolute, contains NUL or climbs out of its root with ".." is refused
// when the case is validated: it is a mistake in the case, not something
// the agent did. A path that goes through a symbolic link anywhere — even
// one pointing inside the workspace — is never followed: the check fails,
// with a comment such as `path "notes.txt" goes through a symlink (in the
// workspace)`. So does a missing file, a directory where a file was
// expected, or a file over the size limit: missing or unusable evidence is
// a failed check (Passed false, the reason in the comment, "refused" in the
// detail), as the reference system does. Only a problem of the grader
// itself (a run without a workspace, a permission error, a command that
// cannot be started, a cancelled context) is an error, which means "could
// not grade" and leaves the case without a verdict. glob-count neither
// follows nor counts symlinks; it lists the ones it skipped in its detail.
//
// # Commands
//
// Grading never changes the evidence it grades: command-exits-zero runs on
// a copy of the workspace (of the run directory with "in": "run") made in
// Run.Scratch for that command alone and removed once it exits, so what it
// writes is seen by no other assertion. Assertions that give the same
// shareCopy name share one copy instead, in the case's order: the first
// makes it, the others see what the earlier ones left. Regular files are
// copied by content (copy-on-write where the file system shares blocks,
// never hard links), symlinks as links, other kinds are left out; over
// MaxCopyFiles entries or MaxCopyBytes bytes is an error.
//
// # Regular expressions
//
// Patterns are Go regular expressions (RE2 syntax, see regexp/syntax), not
// JavaScript ones: matching takes time linear in the input, so no timeout
// or transcript size limit is needed, but there are no backreferences (\1)
// and no lookaround ((?=...), (?!...), (?<=...)). flags may hold i
// (ignore case), m (^ and $ match at line breaks) and s (. matches a
// newline); matching is always global, so there is no g. An invalid pattern
// is a config error naming the field.
//
// # Unavailable measures
//
// tokens-under and cost-under read the agent's usage from run.json. When
// the agent reported none — Usage.Agent == nil, or Usage.AgentCostUSD ==
// nil for the cost; a driver whose CLI reports no usage, such as Cursor's —
// the measure is unavailable, which is not the same as zero. onUnavailable
// decides the verdict then: "pass" (the default) treats the budget as not
// measurable and passes, so a case can run on every driver without failing
// for what a driver cannot report; "fail" demands the evidence, for
// budgets that must be enforced. Either way the comment says the measure
// was unavailable and the detail has "unavailable": true. artifact-bytes-
// under treats the artifacts as unavailable when their collection failed.
// The tokens counted are the agent's alone (the answerer's and judges' are
// kept apart); "total" is input + output, cache tokens excluded.
//
// latency-under measures from the run's start to the agent's end
// (lux.Outcome.AgentEndedAt, else EndedAt), so grading time never counts
// and a regrade sees the same latency as live grading. A run whose metadata
// lacks those times, or ends before it starts, cannot be graded.
//
// # Go predicates
//
// Predicate turns a Go function over the run into an assertion type of its
// own name, which cases (Go or JSON) refer to like a built-in once it is
// registered; PredicateWith adds a strictly decoded config, validated in
// the same pass by its Validate method, as the built-ins are: an unknown
// field never hides the problems of the fields that are known. Pass and
// Fail make a predicate's result; ToolCalls, ToolResults, AgentMessages and
// Interrupts give it the trajectory in usable form (record.SummarizeTools
// counts tool calls as run.json does).
package assertion
