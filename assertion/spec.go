package assertion

import (
	"time"

	"github.com/luxeval/lux"
)

// Option adjusts an assertion spec built by one of the constructors below:
// its identity (ID, Named, Weight, Threshold) or a config field. A field the
// assertion type does not take is reported when the case is validated, like
// any unknown field.
type Option func(*lux.AssertionSpec)

// Set sets the config field key to value: the way to any field without an
// Option of its own.
func Set(key string, value any) Option {
	return func(s *lux.AssertionSpec) {
		if s.Config == nil {
			s.Config = map[string]any{}
		}
		s.Config[key] = value
	}
}

// ID sets the assertion's stable id.
func ID(id string) Option { return func(s *lux.AssertionSpec) { s.ID = id } }

// Named sets the assertion's display name.
func Named(name string) Option { return func(s *lux.AssertionSpec) { s.Name = name } }

// Weight sets the assertion's weight in the case score.
func Weight(w float64) Option { return func(s *lux.AssertionSpec) { s.Weight = w } }

// Threshold sets the lowest score that passes.
func Threshold(t float64) Option { return func(s *lux.AssertionSpec) { s.Threshold = t } }

// In sets the root of a path: InWorkspace (the default) or InRun.
func In(root string) Option { return Set("in", root) }

// Flags sets regular expression flags: any of "i", "m", "s".
func Flags(f string) Option { return Set("flags", f) }

// Min sets the "min" bound of a count.
func Min(n int) Option { return Set("min", n) }

// Max sets the "max" bound of a count.
func Max(n int) Option { return Set("max", n) }

// MinTimes sets tool-called's and tool-called-with's "minTimes".
func MinTimes(n int) Option { return Set("minTimes", n) }

// MaxTimes sets tool-called's "maxTimes".
func MaxTimes(n int) Option { return Set("maxTimes", n) }

// By sets whose tool calls count: lux.AnyAgent, lux.MainAgent or lux.Subagent.
func By(scope lux.CallScope) Option { return Set("by", string(scope)) }

// Tool sets the tool that tool-call-count counts.
func Tool(name string) Option { return Set("tool", name) }

// Against sets what the transcript assertions search: TranscriptFinal or TranscriptAll.
func Against(a string) Option { return Set("against", a) }

// Kind sets the interrupt kind interrupt-count counts.
func Kind(k lux.InterruptKind) Option { return Set("kind", string(k)) }

// ArgsPointer sets tool-called-with's "argsJsonPointer".
func ArgsPointer(ptr string) Option { return Set("argsJsonPointer", ptr) }

// ArgsValue sets tool-called-with's "argsValue".
func ArgsValue(v any) Option { return Set("argsValue", v) }

// ArgsContains sets tool-called-with's "argsContains".
func ArgsContains(text string) Option { return Set("argsContains", text) }

// Timeout sets command-exits-zero's "timeout".
func Timeout(d time.Duration) Option { return Set("timeout", d.String()) }

// Cwd sets command-exits-zero's working directory, relative to its root.
func Cwd(dir string) Option { return Set("cwd", dir) }

// Env sets command-exits-zero's extra environment variables.
func Env(vars map[string]string) Option { return Set("env", vars) }

// InheritEnv names variables command-exits-zero passes from the grading
// process's environment on top of the minimal ones.
func InheritEnv(names ...string) Option { return Set("inheritEnv", names) }

// Component sets the token count tokens-under bounds.
func Component(c string) Option { return Set("component", c) }

// OnUnavailable sets what tokens-under, cost-under and artifact-bytes-under
// do when the measure was not reported: UnavailablePass or UnavailableFail.
func OnUnavailable(v string) Option { return Set("onUnavailable", v) }

func spec(typ string, fields map[string]any, opts []Option) lux.AssertionSpec {
	s := lux.AssertionSpec{Type: typ, Config: fields}
	for _, o := range opts {
		o(&s)
	}
	return s
}

// RunSucceeded passes when the agent finished (exit reason "done").
func RunSucceeded(opts ...Option) lux.AssertionSpec { return spec("run-succeeded", nil, opts) }

// FileExists passes when path is a regular file in the workspace.
func FileExists(path string, opts ...Option) lux.AssertionSpec {
	return spec("file-exists", map[string]any{"path": path}, opts)
}

// FileContains passes when the file at path contains text.
func FileContains(path, text string, opts ...Option) lux.AssertionSpec {
	return spec("file-contains", map[string]any{"path": path, "text": text}, opts)
}

// FileMatches passes when the Go regular expression pattern matches the file at path.
func FileMatches(path, pattern string, opts ...Option) lux.AssertionSpec {
	return spec("file-matches", map[string]any{"path": path, "pattern": pattern}, opts)
}

// FileRegexCount passes when pattern matches the file at path between Min and Max times.
func FileRegexCount(path, pattern string, opts ...Option) lux.AssertionSpec {
	return spec("file-regex-count", map[string]any{"path": path, "pattern": pattern}, opts)
}

// GlobCount passes when the number of files matching glob is between Min and Max.
func GlobCount(glob string, opts ...Option) lux.AssertionSpec {
	return spec("glob-count", map[string]any{"glob": glob}, opts)
}

// JSONPointerEquals passes when the JSON file at path holds value at pointer.
func JSONPointerEquals(path, pointer string, value any, opts ...Option) lux.AssertionSpec {
	return spec("json-pointer-equals", map[string]any{"path": path, "pointer": pointer, "value": value}, opts)
}

// CommandExitsZero passes when the shell command exits 0 in the workspace.
func CommandExitsZero(command string, opts ...Option) lux.AssertionSpec {
	return spec("command-exits-zero", map[string]any{"command": command}, opts)
}

// Contains passes when the agent's final message contains text.
func Contains(text string, opts ...Option) lux.AssertionSpec {
	return spec("contains", map[string]any{"text": text}, opts)
}

// NotContains passes when the agent's final message does not contain text.
func NotContains(text string, opts ...Option) lux.AssertionSpec {
	return spec("not-contains", map[string]any{"text": text}, opts)
}

// Regex passes when the Go regular expression pattern matches the agent's final message.
func Regex(pattern string, opts ...Option) lux.AssertionSpec {
	return spec("regex", map[string]any{"pattern": pattern}, opts)
}

// ToolCalled passes when the agent called tool (at least once by default).
func ToolCalled(tool string, opts ...Option) lux.AssertionSpec {
	return spec("tool-called", map[string]any{"tool": tool}, opts)
}

// ToolCallCount passes when the number of tool calls is between Min and Max.
func ToolCallCount(opts ...Option) lux.AssertionSpec { return spec("tool-call-count", nil, opts) }

// ToolCalledWith passes when a call of tool has the arguments given by
// ArgsPointer with ArgsValue or ArgsContains.
func ToolCalledWith(tool string, opts ...Option) lux.AssertionSpec {
	return spec("tool-called-with", map[string]any{"tool": tool}, opts)
}

// InterruptCount passes when the number of interrupts is between Min and Max.
func InterruptCount(opts ...Option) lux.AssertionSpec { return spec("interrupt-count", nil, opts) }

// LatencyUnder passes when the agent took at most max.
func LatencyUnder(max time.Duration, opts ...Option) lux.AssertionSpec {
	return spec("latency-under", map[string]any{"max": max.String()}, opts)
}

// TokensUnder passes when the agent's tokens (input + output) are at most max.
func TokensUnder(max int64, opts ...Option) lux.AssertionSpec {
	return spec("tokens-under", map[string]any{"max": max}, opts)
}

// CostUnder passes when the agent's reported cost is at most maxUSD.
func CostUnder(maxUSD float64, opts ...Option) lux.AssertionSpec {
	return spec("cost-under", map[string]any{"maxUsd": maxUSD}, opts)
}

// ArtifactBytesUnder passes when the artifacts add up to at most max bytes.
func ArtifactBytesUnder(max int64, opts ...Option) lux.AssertionSpec {
	return spec("artifact-bytes-under", map[string]any{"max": max}, opts)
}
