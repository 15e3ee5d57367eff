package cursor

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
)

// toolCall is the "tool_call" object of a tool_call line, decoded.
//
// The CLI prints the tool as the one key ending in "ToolCall"
// ({"shellToolCall": {"args": ..., "result": ...}}), next to metadata such
// as toolCallId and startedAtMs. Two other shapes are accepted: the
// protobuf-es form {"tool": {"case": "readToolCall", "value": {...}}} and
// the documented {"function": {"name": ..., "arguments": ...}}.
type toolCall struct {
	Name      string // the kind without its "ToolCall" suffix: "shell", "read", "edit", ...; see toolName
	Args      any
	Result    line   // the result oneof, nil when absent
	ID        string // toolCallId, when present
	StartedMS float64
	EndedMS   float64
}

// nonTerminal are result cases that report a status rather than an
// outcome; they are not failures.
var nonTerminal = []string{"approved", "async", "stillRunning"}

// outcomes are the result cases the CLI is known to print, success first.
var outcomes = []string{
	"success", "failure", "error", "rejected", "timeout", "spawnError", "permissionDenied",
	"fileNotFound", "readPermissionDenied", "writePermissionDenied", "notFile", "fileBusy",
	"noSpace", "invalidFile", "sandboxUnsupported", "notFound", "serverNotFound", "toolNotFound",
	"needsConfirmation", "approved", "async", "stillRunning",
}

// resultMetadata are keys that sit next to the outcome in a result.
var resultMetadata = []string{"isBackground", "sandboxPolicy", "pid"}

func decodeToolCall(raw json.RawMessage) toolCall {
	obj := rawObject(raw)
	tc := toolCall{Name: "unknown"}
	if obj == nil {
		tc.Args = rawAny(raw)
		return tc
	}
	tc.ID = obj.str("toolCallId")
	tc.StartedMS, _ = obj.num("startedAtMs")
	tc.EndedMS, _ = obj.num("completedAtMs")

	key, body := toolKey(obj)
	switch {
	case key != "":
		tc.Name = strings.TrimSuffix(key, "ToolCall")
	case obj.has("function"):
		fn := obj.object("function")
		if name := fn.str("name"); name != "" {
			tc.Name = name
		}
		tc.Args = rawAny(fn["arguments"])
		if s, ok := tc.Args.(string); ok {
			var v any
			if json.Unmarshal([]byte(s), &v) == nil {
				tc.Args = v
			}
		}
		tc.Result = fn.object("result")
		return tc
	default:
		tc.Args = rawAny(raw)
		return tc
	}
	tc.Args = rawAny(body["args"])
	tc.Result = body.object("result")
	if tc.ID == "" {
		if args := body.object("args"); args != nil {
			tc.ID = args.str("toolCallId")
		}
	}
	if tc.Name == "mcp" {
		if args := body.object("args"); args != nil {
			if n := firstNonEmpty(args.str("toolName"), args.str("name")); n != "" {
				tc.Name = n
			}
		}
	}
	return tc
}

// toolKey finds the "<kind>ToolCall" key of obj (never "toolCallId"), or
// the protobuf-es {"tool": {"case", "value"}} form, and returns it with its body.
func toolKey(obj line) (string, line) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.HasSuffix(k, "ToolCall") && len(k) > len("ToolCall") {
			if body := obj.object(k); body != nil {
				return k, body
			}
		}
	}
	if tool := obj.object("tool"); tool != nil {
		if k := tool.str("case"); strings.HasSuffix(k, "ToolCall") {
			return k, tool.object("value")
		}
	}
	return "", nil
}

// outcome returns the case of a tool result and its payload: the first
// known outcome key present, else the first object-valued key that is not
// metadata. It returns "" when the result is absent.
func outcome(result line) (string, line) {
	if result == nil {
		return "", nil
	}
	for _, k := range outcomes {
		if result.has(k) {
			return k, result.object(k)
		}
	}
	keys := make([]string, 0, len(result))
	for k := range result {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if slices.Contains(resultMetadata, k) {
			continue
		}
		if body := result.object(k); body != nil {
			return k, body
		}
	}
	return "", nil
}

// resultFacts returns what a tool result reports: whether it failed, the
// text a reader would look at, and the content to record.
func resultFacts(tc toolCall) (isError bool, text string, content any, structured map[string]any) {
	name, body := outcome(tc.Result)
	content = resultAny(tc.Result)
	switch {
	case name == "":
		return false, "", content, nil
	case name == "success":
		isError = false
	case slices.Contains(nonTerminal, name):
		isError = false
	default:
		isError = true
	}
	// An MCP tool's success carries MCP content and its own error flag.
	if name == "success" && body != nil && body.has("content") && body.has("isError") {
		var flag bool
		_ = json.Unmarshal(body["isError"], &flag)
		isError = flag
		content = rawAny(body["content"])
		if sc, ok := rawAny(body["structuredContent"]).(map[string]any); ok {
			structured = sc
		}
		return isError, mcpText(body["content"]), content, structured
	}
	return isError, outcomeText(name, body), content, nil
}

func resultAny(result line) any {
	if result == nil {
		return nil
	}
	b, err := json.Marshal(result)
	if err != nil {
		return nil
	}
	return rawAny(b)
}

// outcomeText is the part of an outcome a reader looks at first.
func outcomeText(name string, body line) string {
	if body == nil {
		return name
	}
	if s := body.str("interleavedOutput"); s != "" {
		return s
	}
	if body.has("stdout") || body.has("stderr") {
		return body.str("stdout") + body.str("stderr")
	}
	for _, k := range []string{"content", "message", "errorMessage", "error", "reason"} {
		if s := body.str(k); s != "" {
			return s
		}
	}
	if name != "success" {
		return name
	}
	b, _ := json.Marshal(body)
	return string(b)
}

// mcpText joins the text items of MCP content: [{"text": {"text": ...}}]
// as the CLI prints it, or [{"type": "text", "text": ...}].
func mcpText(raw json.RawMessage) string {
	var items []line
	if json.Unmarshal(raw, &items) != nil {
		return rawString(raw)
	}
	var parts []string
	for _, it := range items {
		if t := it.object("text"); t != nil {
			parts = append(parts, t.str("text"))
		} else if s := it.str("text"); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
