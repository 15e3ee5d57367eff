package assertion

import "github.com/luxeval/lux"

// Match is one side of a tool-invocation match: the value at JSONPointer
// equals Equals, contains Contains or matches the regular expression
// Matches (with Flags). Set exactly one of the three.
type Match struct {
	JSONPointer string
	Equals      any
	Contains    string
	Matches     string
	Flags       string
}

func (m Match) fields() map[string]any {
	f := map[string]any{}
	if m.JSONPointer != "" {
		f["jsonPointer"] = m.JSONPointer
	}
	if m.Equals != nil {
		f["equals"] = m.Equals
	}
	if m.Contains != "" {
		f["contains"] = m.Contains
	}
	if m.Matches != "" {
		f["matches"] = m.Matches
	}
	if m.Flags != "" {
		f["flags"] = m.Flags
	}
	return f
}

// FileRegexSet passes when all, any or none (mode: ModeAll, ModeAny,
// ModeNone) of the Go regular expressions patterns match the file at path.
func FileRegexSet(path, mode string, patterns []string, opts ...FileMatchesOption) lux.AssertionSpec {
	return spec("file-regex-set", map[string]any{"path": path, "mode": mode, "patterns": patterns}, opts)
}

// ToolInvocation passes when a call of tool got a successful result (see
// ResultKind, Occurrence, Input, Output).
func ToolInvocation(tool string, opts ...ToolInvocationOption) lux.AssertionSpec {
	return spec("tool-invocation", map[string]any{"tool": tool}, opts)
}

// ToolResultIsError passes when the last result of tool (any tool when
// tool is "") has isError (see Expected, Occurrence).
func ToolResultIsError(tool string, opts ...ToolResultIsErrorOption) lux.AssertionSpec {
	return spec("tool-result-is-error", toolField(tool), opts)
}

// ToolResultContains passes when a result of tool (any tool when tool is
// "") contains text.
func ToolResultContains(tool, text string, opts ...ToolResultOption) lux.AssertionSpec {
	f := toolField(tool)
	f["text"] = text
	return spec("tool-result-contains", f, opts)
}

// ToolResultJSONPointerEquals passes when the last result of tool holds
// value at pointer.
func ToolResultJSONPointerEquals(tool, pointer string, value any, opts ...ToolResultOption) lux.AssertionSpec {
	return spec("tool-result-json-pointer-equals", map[string]any{"tool": tool, "jsonPointer": pointer, "value": value}, opts)
}

// ToolResultJSONPointerContains passes when the value at pointer in the
// last result of tool is text containing text (tool-result-json-pointer-equals
// with contains).
func ToolResultJSONPointerContains(tool, pointer, text string, opts ...ToolResultOption) lux.AssertionSpec {
	return spec("tool-result-json-pointer-equals", map[string]any{"tool": tool, "jsonPointer": pointer, "contains": text}, opts)
}

// NoErrorResults passes when no tool result has isError (and there is at
// least one, unless AllowEmpty is given).
func NoErrorResults(opts ...NoErrorResultsOption) lux.AssertionSpec {
	return spec("no-error-results", nil, opts)
}

func toolField(tool string) map[string]any {
	f := map[string]any{}
	if tool != "" {
		f["tool"] = tool
	}
	return f
}
