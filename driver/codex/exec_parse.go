package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/luxeval/lux"
)

// AgentID is the agent id the driver reports when ready.
const AgentID = "codex"

// Progress kinds this driver emits besides the shared ones.
const (
	// KindCodexError is an error the CLI reported without ending the turn
	// (a "Reconnecting..." retry notice, or the message that precedes a
	// failed turn). Payload: {"message": ..., "willRetry": true when the
	// CLI retries}.
	KindCodexError = "codex-error"
	// KindWarning is a warning from the CLI: an exec "error" item (an
	// unknown model, a feature under development) or an app-server
	// warning notification. Payload: {"message": ..., "details": ...}.
	KindWarning = "codex-warning"
	// KindCodexItem is an item with no lux equivalent (a plan, a todo
	// list, a context compaction, ...). Payload: the item as the CLI
	// printed it.
	KindCodexItem = "codex-item"
	// KindStdout is a stdout line that is not a JSON object. Payload:
	// {"text": <the line>}.
	KindStdout = "stdout-text"
)

// Tool names of the CLI's built-in tools, as tool-call events name them.
const (
	ToolCommand    = "command_execution" // a shell command; input {command, cwd}
	ToolFileChange = "file_change"       // an apply_patch; input {changes}
	ToolWebSearch  = "web_search"        // input {query}
)

// execLine is one line of `codex exec --json`.
type execLine struct {
	Type     string          `json:"type"`
	ThreadID string          `json:"thread_id"`
	Item     json.RawMessage `json:"item"`
	Usage    *cliUsage       `json:"usage"`
	Message  string          `json:"message"`
	Error    json.RawMessage `json:"error"`
}

// execItem is the union of the fields of exec's thread items.
type execItem struct {
	ID               string          `json:"id"`
	Type             string          `json:"type"`
	Text             string          `json:"text"`
	Message          string          `json:"message"`
	Command          string          `json:"command"`
	AggregatedOutput *string         `json:"aggregated_output"`
	ExitCode         *int            `json:"exit_code"`
	Status           string          `json:"status"`
	Changes          []fileChange    `json:"changes"`
	Server           string          `json:"server"`
	Tool             string          `json:"tool"`
	Arguments        json.RawMessage `json:"arguments"`
	Result           json.RawMessage `json:"result"`
	Error            json.RawMessage `json:"error"`
	Query            string          `json:"query"`
}

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

// parseOptions is what the parsers know of the launch.
type parseOptions struct {
	Model      string // the model the config asks for
	CLIVersion string // the CLI's --version, when known
}

// execParser turns the lines of `codex exec --json` into lux events, one
// line at a time. It keeps only what correlating lines needs and does no
// I/O; the events it returns carry no time.
type execParser struct {
	opts      parseOptions
	ready     bool
	terminal  bool
	threadID  string
	lastError string
	called    toolCalls
	seq       int
}

func newExecParser(opts parseOptions) *execParser {
	return &execParser{opts: opts, called: toolCalls{}}
}

// Terminal reports whether the turn has ended (turn.completed or
// turn.failed was seen).
func (p *execParser) Terminal() bool { return p.terminal }

// LastError is the message of the last error the CLI reported, for a
// process that exits without ending its turn.
func (p *execParser) LastError() string { return p.lastError }

// Line translates one stdout line (without its newline). After the
// terminal event it returns nothing.
func (p *execParser) Line(b []byte) []lux.Event {
	if p.terminal {
		return nil
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	var l execLine
	if b[0] != '{' || json.Unmarshal(b, &l) != nil || l.Type == "" {
		return []lux.Event{p.progress(KindStdout, map[string]string{"text": string(b)})}
	}
	switch l.Type {
	case "thread.started":
		p.threadID = l.ThreadID
		return p.readyEvent()
	case "turn.started", "item.updated":
		return nil
	case "item.started", "item.completed":
		var it execItem
		if err := json.Unmarshal(l.Item, &it); err != nil {
			return []lux.Event{p.progress(KindCodexItem, l.Item)}
		}
		return p.item(it, l.Item, l.Type == "item.completed")
	case "turn.completed":
		p.terminal = true
		done := &lux.Done{Turns: 1, Summary: map[string]any{"threadId": p.threadID}}
		var out []lux.Event
		if l.Usage != nil {
			u := l.Usage.tokens()
			done.Usage = &u
			out = append(out, p.usage(u, "turn"))
		}
		return append(out, lux.Event{Type: lux.EventDone, Done: done})
	case "turn.failed":
		p.terminal = true
		msg := errorMessage(l.Error)
		if msg == "" {
			msg = p.lastError
		}
		if msg == "" {
			msg = "codex reported a failed turn"
		}
		return []lux.Event{errorEvent(msg)}
	case "error":
		msg := l.Message
		if msg == "" {
			msg = errorMessage(l.Error)
		}
		p.lastError = msg
		retry := strings.HasPrefix(msg, "Reconnecting...")
		return []lux.Event{p.progress(KindCodexError, map[string]any{"message": msg, "willRetry": retry})}
	}
	return []lux.Event{p.progress(KindCodexItem, json.RawMessage(b))}
}

func (p *execParser) readyEvent() []lux.Event {
	if p.ready {
		return nil
	}
	p.ready = true
	detail := map[string]any{"mode": string(ModeExec)}
	if p.threadID != "" {
		detail["threadId"] = p.threadID
	}
	return []lux.Event{{Type: lux.EventReady, Ready: &lux.Ready{
		AgentID: AgentID, AgentVersion: p.opts.CLIVersion, Model: p.opts.Model, Detail: detail,
	}}}
}

// item translates one thread item, started or completed.
func (p *execParser) item(it execItem, raw json.RawMessage, completed bool) []lux.Event {
	switch it.Type {
	case "agent_message":
		if !completed {
			return nil
		}
		return []lux.Event{progressEvent(it.ID, lux.KindAgentMessage, &lux.Message{Text: it.Text})}
	case "reasoning":
		if !completed {
			return nil
		}
		return []lux.Event{progressEvent(it.ID, lux.KindReasoning, &lux.Message{Text: it.Text})}
	case "error":
		if !completed {
			return nil
		}
		return []lux.Event{progressEvent(it.ID, KindWarning, map[string]string{"message": it.Message})}
	case "command_execution":
		call := &lux.ToolCall{Name: ToolCommand, Input: map[string]any{"command": it.Command}, ToolUseID: it.ID}
		return p.called.events(call, completed, func() *lux.ToolResult { return commandResult(it.ID, it.AggregatedOutput, it.ExitCode, it.Status) })
	case "file_change":
		call := &lux.ToolCall{Name: ToolFileChange, Input: map[string]any{"changes": it.Changes}, ToolUseID: it.ID}
		return p.called.events(call, completed, func() *lux.ToolResult { return fileChangeResult(it.ID, it.Changes, it.Status) })
	case "mcp_tool_call":
		call := &lux.ToolCall{Name: it.Tool, Input: rawOrEmpty(it.Arguments), ToolUseID: it.ID}
		return p.called.events(call, completed, func() *lux.ToolResult {
			return mcpResult(it.ID, it.Tool, it.Result, it.Error, it.Status)
		})
	case "web_search":
		call := &lux.ToolCall{Name: ToolWebSearch, Input: map[string]any{"query": it.Query}, ToolUseID: it.ID}
		return p.called.events(call, completed, func() *lux.ToolResult {
			return &lux.ToolResult{Name: ToolWebSearch, ToolUseID: it.ID, Content: map[string]any{"query": it.Query}, Text: it.Query}
		})
	}
	if !completed {
		return nil
	}
	return []lux.Event{progressEvent(it.ID, KindCodexItem, raw)}
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

func (p *execParser) progress(kind string, v any) lux.Event {
	p.seq++
	return progressEvent(fmt.Sprintf("%s-%d", kind, p.seq), kind, v)
}

func (p *execParser) usage(u lux.TokenUsage, label string) lux.Event {
	p.seq++
	return progressEvent(fmt.Sprintf("usage-%d", p.seq), lux.KindUsage, &lux.UsageReport{TokenUsage: u, Label: label})
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
