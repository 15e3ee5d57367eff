package codex

import (
	"encoding/json"
	"strings"

	"github.com/luxeval/lux"
)

// Tool names of the CLI's built-in tools, as tool-call events name them.
const (
	ToolCommand    = "command_execution" // a shell command; input {command, cwd}
	ToolFileChange = "file_change"       // an apply_patch; input {changes}
	ToolWebSearch  = "web_search"        // input {query}
)

// fileChange is one file of a file_change item. Kind is a string in exec
// ("add") and an object in app-server ({"type": "add"}).
type fileChange struct {
	Path string          `json:"path"`
	Kind json.RawMessage `json:"kind"`
	Diff string          `json:"diff,omitempty"`
}

// kindName returns the change's kind as text.
func (f fileChange) kindName() string {
	var s string
	if json.Unmarshal(f.Kind, &s) == nil {
		return s
	}
	var o struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(f.Kind, &o) == nil {
		return o.Type
	}
	return string(f.Kind)
}

// toolCalls remembers the items whose tool-call event was emitted.
type toolCalls map[string]bool

// events returns the tool-call event when the item starts (or completes
// without having started), and the tool-result event when it completes.
func (c toolCalls) events(call *lux.ToolCall, completed bool, result func() *lux.ToolResult) []lux.Event {
	var out []lux.Event
	if !c[call.ToolUseID] {
		c[call.ToolUseID] = true
		out = append(out, progressEvent(call.ToolUseID, lux.KindToolCall, call))
	}
	if completed {
		out = append(out, progressEvent(call.ToolUseID+"/result", lux.KindToolResult, result()))
	}
	return out
}

func progressEvent(id, kind string, v any) lux.Event {
	pr := lux.NewProgress(id, kind, v)
	return lux.Event{Type: lux.EventProgress, Progress: &pr}
}

func errorEvent(reason string) lux.Event {
	return lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: reason}}
}

// commandResult is the result of a shell command. It failed when the CLI
// says so (failed, declined) or it exited non-zero.
func commandResult(id string, output *string, exitCode *int, status string) *lux.ToolResult {
	content := map[string]any{"status": status}
	text := ""
	if output != nil {
		text = *output
		content["output"] = text
	}
	if exitCode != nil {
		content["exitCode"] = *exitCode
	}
	return &lux.ToolResult{
		Name: ToolCommand, ToolUseID: id, Content: content, Text: text,
		IsError: failedStatus(status) || (exitCode != nil && *exitCode != 0),
	}
}

// webSearch is a web search as a tool call, and its result once it has
// completed: the query, for neither CLI mode reports what was found.
func webSearch(id, query string) (*lux.ToolCall, func() *lux.ToolResult) {
	call := &lux.ToolCall{Name: ToolWebSearch, Input: map[string]any{"query": query}, ToolUseID: id}
	return call, func() *lux.ToolResult {
		return &lux.ToolResult{Name: ToolWebSearch, ToolUseID: id, Content: map[string]any{"query": query}, Text: query}
	}
}

// fileChangeCall is a patch as a tool call, and its result once it has
// completed (see fileChangeResult).
func fileChangeCall(id string, changes []fileChange, status string) (*lux.ToolCall, func() *lux.ToolResult) {
	call := &lux.ToolCall{Name: ToolFileChange, Input: map[string]any{"changes": changes}, ToolUseID: id}
	return call, func() *lux.ToolResult { return fileChangeResult(id, changes, status) }
}

// otherItem is an item of a type the driver does not map to an event of
// its own: recorded as it came, once completed.
func otherItem(id string, raw json.RawMessage, completed bool) []lux.Event {
	if !completed {
		return nil
	}
	return []lux.Event{progressEvent(id, KindCodexItem, raw)}
}

// fileChangeResult is the result of a patch: one "<kind> <path>" line per
// file. It failed unless the CLI says it completed.
func fileChangeResult(id string, changes []fileChange, status string) *lux.ToolResult {
	lines := make([]string, len(changes))
	for i, c := range changes {
		lines[i] = c.kindName() + " " + c.Path
	}
	return &lux.ToolResult{
		Name: ToolFileChange, ToolUseID: id,
		Content: map[string]any{"changes": changes, "status": status},
		Text:    strings.Join(lines, "\n"),
		IsError: status != "completed",
	}
}

// mcpResult is the result of an MCP tool call.
func mcpResult(id, tool string, result, errRaw json.RawMessage, status string) *lux.ToolResult {
	r := &lux.ToolResult{Name: tool, ToolUseID: id, Content: []any{}}
	var res struct {
		Content           any            `json:"content"`
		StructuredContent map[string]any `json:"structuredContent"`
		IsError           bool           `json:"isError"`
	}
	if len(result) > 0 && json.Unmarshal(result, &res) == nil {
		if res.Content != nil {
			r.Content = res.Content
		}
		r.StructuredContent = res.StructuredContent
		r.IsError = res.IsError
		r.Text = contentText(res.Content)
	}
	if msg := errorMessage(errRaw); msg != "" {
		r.IsError = true
		if r.Text == "" {
			r.Text = msg
		}
	}
	r.IsError = r.IsError || failedStatus(status)
	return r
}

// contentText joins the text parts of MCP content.
func contentText(content any) string {
	parts, ok := content.([]any)
	if !ok {
		if s, ok := content.(string); ok {
			return s
		}
		return ""
	}
	var texts []string
	for _, p := range parts {
		if m, ok := p.(map[string]any); ok {
			if t, ok := m["text"].(string); ok {
				texts = append(texts, t)
			}
		}
	}
	return strings.Join(texts, "\n")
}

func failedStatus(s string) bool { return s == "failed" || s == "declined" }

// errorMessage reads an error given as a string or as {"message": ...}.
func errorMessage(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Message != "" {
		return o.Message
	}
	return string(raw)
}

func rawOrEmpty(raw json.RawMessage) any {
	if len(raw) == 0 {
		return map[string]any{}
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return v
}
