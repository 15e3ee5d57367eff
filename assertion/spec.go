package assertion

import (
	"time"

	"github.com/luxeval/lux"
)

// The constructors build the spec of a built-in assertion from its
// required fields and its options (see options.go).

// RunSucceeded passes when the agent finished (exit reason "done").
func RunSucceeded(opts ...Option) lux.AssertionSpec { return spec("run-succeeded", nil, opts) }

// FileExists passes when path is a regular file in the workspace.
func FileExists(path string, opts ...PathOption) lux.AssertionSpec {
	return spec("file-exists", map[string]any{"path": path}, opts)
}

// FileContains passes when the file at path contains text.
func FileContains(path, text string, opts ...PathOption) lux.AssertionSpec {
	return spec("file-contains", map[string]any{"path": path, "text": text}, opts)
}

// FileMatches passes when the Go regular expression pattern matches the file at path.
func FileMatches(path, pattern string, opts ...FileMatchesOption) lux.AssertionSpec {
	return spec("file-matches", map[string]any{"path": path, "pattern": pattern}, opts)
}

// FileRegexCount passes when pattern matches the file at path between Min and Max times.
func FileRegexCount(path, pattern string, opts ...FileRegexCountOption) lux.AssertionSpec {
	return spec("file-regex-count", map[string]any{"path": path, "pattern": pattern}, opts)
}

// GlobCount passes when the number of files matching glob is between Min and Max.
func GlobCount(glob string, opts ...GlobCountOption) lux.AssertionSpec {
	return spec("glob-count", map[string]any{"glob": glob}, opts)
}

// JSONPointerEquals passes when the JSON file at path holds value at pointer.
func JSONPointerEquals(path, pointer string, value any, opts ...PathOption) lux.AssertionSpec {
	return spec("json-pointer-equals", map[string]any{"path": path, "pointer": pointer, "value": value}, opts)
}

// CommandExitsZero passes when the shell command exits 0 in the workspace.
func CommandExitsZero(command string, opts ...CommandOption) lux.AssertionSpec {
	return spec("command-exits-zero", map[string]any{"command": command}, opts)
}

// Contains passes when the agent's final message contains text.
func Contains(text string, opts ...TranscriptOption) lux.AssertionSpec {
	return spec("contains", map[string]any{"text": text}, opts)
}

// NotContains passes when the agent's final message does not contain text.
func NotContains(text string, opts ...TranscriptOption) lux.AssertionSpec {
	return spec("not-contains", map[string]any{"text": text}, opts)
}

// Regex passes when the Go regular expression pattern matches the agent's final message.
func Regex(pattern string, opts ...RegexOption) lux.AssertionSpec {
	return spec("regex", map[string]any{"pattern": pattern}, opts)
}

// ToolCalled passes when the agent called tool (at least once by default).
func ToolCalled(tool string, opts ...ToolCalledOption) lux.AssertionSpec {
	return spec("tool-called", map[string]any{"tool": tool}, opts)
}

// ToolCallCount passes when the number of tool calls is between Min and Max.
func ToolCallCount(opts ...ToolCallCountOption) lux.AssertionSpec {
	return spec("tool-call-count", nil, opts)
}

// ToolCalledWith passes when a call of tool has the arguments given by
// ArgsPointer with ArgsValue or ArgsContains.
func ToolCalledWith(tool string, opts ...ToolCalledWithOption) lux.AssertionSpec {
	return spec("tool-called-with", map[string]any{"tool": tool}, opts)
}

// InterruptCount passes when the number of interrupts is between Min and Max.
func InterruptCount(opts ...InterruptCountOption) lux.AssertionSpec {
	return spec("interrupt-count", nil, opts)
}

// LatencyUnder passes when the agent took at most max.
func LatencyUnder(max time.Duration, opts ...Option) lux.AssertionSpec {
	return spec("latency-under", map[string]any{"max": max.String()}, opts)
}

// TokensUnder passes when the agent's tokens (input + output) are at most max.
func TokensUnder(max int64, opts ...TokensUnderOption) lux.AssertionSpec {
	return spec("tokens-under", map[string]any{"max": max}, opts)
}

// CostUnder passes when the agent's reported cost is at most maxUSD.
func CostUnder(maxUSD float64, opts ...BudgetOption) lux.AssertionSpec {
	return spec("cost-under", map[string]any{"maxUsd": maxUSD}, opts)
}

// ArtifactBytesUnder passes when the artifacts add up to at most max bytes.
func ArtifactBytesUnder(max int64, opts ...BudgetOption) lux.AssertionSpec {
	return spec("artifact-bytes-under", map[string]any{"max": max}, opts)
}
