package claudecode

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/luxeval/lux"
)

// AgentID is the agent id the driver reports when ready.
const AgentID = "claude-code"

// syntheticModel is the model of the messages the CLI writes itself.
const syntheticModel = "<synthetic>"

// parser turns the CLI's stream-json lines into lux events, one line at a
// time. It keeps what correlating lines needs (tool names by call id, the
// usage of each API response until it is complete, the control requests
// waiting for an answer) and does no I/O; the events it returns carry no
// time.
type parser struct {
	ready    bool
	terminal bool
	seq      map[string]int // per id prefix
	partial  bool           // stream_event lines were seen

	toolNames map[string]string // tool_use id → tool name

	// usage per API response (message id), reported once each.
	usage    map[string]*apiUsage
	models   map[string]string
	open     []string // message ids whose usage is not reported yet, in order
	reported map[string]bool

	interrupts *interrupts
}

func newParser() *parser {
	return &parser{
		seq:        map[string]int{},
		toolNames:  map[string]string{},
		usage:      map[string]*apiUsage{},
		models:     map[string]string{},
		reported:   map[string]bool{},
		interrupts: newInterrupts(DefaultAskTool),
	}
}

// Terminal reports whether the result line has been seen.
func (p *parser) Terminal() bool { return p.terminal }

// Answer returns the control_response line (without its newline) that
// delivers a to the CLI, or nil when the CLI withdrew the request.
func (p *parser) Answer(a lux.Answer) ([]byte, error) { return p.interrupts.answer(a) }

// output is what one line turns into: events for the harness, and lines to
// write to the CLI's standard input at once (refusals of control requests
// the driver cannot answer).
type output struct {
	Events  []lux.Event
	Replies [][]byte
}

func (o *output) add(e lux.Event) { o.Events = append(o.Events, e) }

func (o *output) progress(id, kind string, v any) {
	pr := lux.NewProgress(id, kind, v)
	o.add(lux.Event{Type: lux.EventProgress, Progress: &pr})
}

// Line translates one stdout line (without its newline). After the
// terminal event it returns nothing.
func (p *parser) Line(b []byte) output {
	var out output
	if p.terminal {
		return out
	}
	env, ok := decodeEnvelope(b)
	if !ok {
		text := strings.TrimRight(string(b), "\r")
		if strings.TrimSpace(text) != "" {
			out.progress(p.nextID("out"), KindStdout, map[string]string{"text": text})
		}
		return out
	}
	switch env.Type {
	case "system":
		p.system(&out, env.Subtype, b)
	case "assistant":
		p.assistant(&out, b)
	case "user":
		p.user(&out, b)
	case "stream_event":
		p.streamEvent(&out, b)
	case "control_request":
		p.flushSequential(&out)
		p.controlRequest(&out, b)
	case "control_cancel_request":
		var c struct {
			RequestID string `json:"request_id"`
		}
		_ = json.Unmarshal(b, &c)
		p.interrupts.cancel(c.RequestID)
		out.progress(p.nextID("ctl"), KindClaudeEvent, json.RawMessage(b))
	case "result":
		p.result(&out, b)
	case "keep_alive", "control_response":
		// Nothing to report: liveness and acknowledgements.
	default:
		out.progress(p.nextID("evt"), KindClaudeEvent, rawLine(b))
	}
	return out
}

func (p *parser) nextID(prefix string) string {
	p.seq[prefix]++
	return fmt.Sprintf("%s-%d", prefix, p.seq[prefix])
}

// rawLine keeps a line as a JSON payload.
func rawLine(b []byte) json.RawMessage {
	return json.RawMessage(strings.TrimSpace(string(b)))
}

func (p *parser) system(out *output, subtype string, b []byte) {
	switch subtype {
	case "init":
		if p.ready {
			return // a later user turn; this driver sends one
		}
		var l initLine
		_ = json.Unmarshal(b, &l)
		p.ready = true
		detail := map[string]any{}
		put := func(k, v string) {
			if v != "" {
				detail[k] = v
			}
		}
		put("sessionId", l.SessionID)
		put("cwd", l.CWD)
		put("permissionMode", l.PermissionMode)
		put("apiKeySource", l.APIKeySource)
		if len(l.Tools) > 0 {
			detail["tools"] = l.Tools
		}
		var plugins []string
		for _, pl := range l.Plugins {
			if pl.Path != "builtin" {
				plugins = append(plugins, pl.Name)
			}
		}
		if len(plugins) > 0 {
			detail["plugins"] = plugins
		}
		out.add(lux.Event{Type: lux.EventReady, Ready: lux.NewReady(AgentID, l.Version, l.Model, detail)})
	case "permission_denied":
		var l permissionDeniedLine
		_ = json.Unmarshal(b, &l)
		id := "pd-" + l.ToolUseID
		if l.ToolUseID == "" {
			id = p.nextID("pd")
		}
		out.progress(id, KindPermissionDenied, PermissionDenied{
			ToolName: l.ToolName, ToolUseID: l.ToolUseID, Message: l.Message,
			ReasonType: l.ReasonType, ReasonCode: l.ReasonCode,
		})
	case "api_retry":
		var l apiRetryLine
		_ = json.Unmarshal(b, &l)
		out.progress(p.nextID("retry"), KindAPIRetry, APIRetry{
			Attempt: l.Attempt, MaxRetries: l.MaxRetries, RetryDelayMs: l.RetryDelayMs,
			Status: l.ErrorStatus, Error: l.Error,
		})
	case "informational":
		var l struct {
			Content string `json:"content"`
		}
		_ = json.Unmarshal(b, &l)
		out.progress(p.nextID("notice"), KindNotice, map[string]string{"text": l.Content})
	case "status", "ui_invalidate", "thinking_tokens":
		// Request status and display hints: nothing the run needs.
	default:
		out.progress(p.nextID("evt"), KindClaudeEvent, rawLine(b))
	}
}

func (p *parser) assistant(out *output, b []byte) {
	var l messageLine
	if err := json.Unmarshal(b, &l); err != nil {
		out.progress(p.nextID("evt"), KindClaudeEvent, rawLine(b))
		return
	}
	m := l.Message
	synthetic := l.APIError || m.Model == syntheticModel
	if !synthetic && m.ID != "" {
		p.observe(out, m.ID, m.Model, m.Usage, false)
	}
	for _, bl := range m.blocks() {
		switch bl.Type {
		case "text":
			if synthetic {
				out.progress(p.nextID("apierr"), KindAPIError, APIError{Text: bl.Text, Status: l.APIErrorStatus, Type: l.APIErrorType})
				continue
			}
			if bl.Text == "" {
				continue
			}
			out.progress(p.nextID("msg"), lux.KindAgentMessage, &lux.Message{Text: bl.Text, ParentToolUseID: l.ParentToolUseID})
		case "thinking":
			if bl.Thinking == "" {
				continue
			}
			out.progress(p.nextID("think"), lux.KindReasoning, &lux.Message{Text: bl.Thinking, ParentToolUseID: l.ParentToolUseID})
		case "tool_use", "server_tool_use", "mcp_tool_use":
			p.toolNames[bl.ID] = bl.Name
			id := "tc-" + bl.ID
			if bl.ID == "" {
				id = p.nextID("tc")
			}
			out.progress(id, lux.KindToolCall, &lux.ToolCall{
				Name: bl.Name, Input: decodeAny(bl.Input), ToolUseID: bl.ID, ParentToolUseID: l.ParentToolUseID,
			})
		}
	}
}

func (p *parser) user(out *output, b []byte) {
	p.flushSequential(out)
	var l messageLine
	if err := json.Unmarshal(b, &l); err != nil {
		out.progress(p.nextID("evt"), KindClaudeEvent, rawLine(b))
		return
	}
	blocks := l.Message.blocks()
	for _, bl := range blocks {
		switch bl.Type {
		case "tool_result":
			name := p.toolNames[bl.ToolUseID]
			if name == "" {
				name = "unknown"
			}
			id := "tr-" + bl.ToolUseID
			if bl.ToolUseID == "" {
				id = p.nextID("tr")
			}
			r := &lux.ToolResult{
				Name: name, ToolUseID: bl.ToolUseID, Content: decodeAny(bl.Content),
				IsError: bl.IsError, Text: resultText(bl.Content), ParentToolUseID: l.ParentToolUseID,
			}
			// The structured result belongs to the line's only result.
			if len(blocks) == 1 {
				var structured map[string]any
				if json.Unmarshal(l.ToolUseResult, &structured) == nil && len(structured) > 0 {
					r.StructuredContent = structured
				}
			}
			out.progress(id, lux.KindToolResult, r)
		case "text":
			if bl.Text != "" {
				out.progress(p.nextID("user"), KindUserMessage, &lux.Message{Text: bl.Text, ParentToolUseID: l.ParentToolUseID})
			}
		}
	}
}

func (p *parser) streamEvent(out *output, b []byte) {
	p.partial = true
	var l streamEventLine
	if json.Unmarshal(b, &l) != nil {
		return
	}
	id := l.APIMessageID
	switch l.Event.Type {
	case "message_start":
		if m := l.Event.Message; m != nil {
			if id == "" {
				id = m.ID
			}
			if m.Model != syntheticModel {
				p.observe(out, id, m.Model, m.Usage, true)
			}
		}
	case "message_delta":
		p.observe(out, id, "", l.Event.Usage, true)
	case "message_stop":
		p.flush(out, id)
	}
}

func (p *parser) controlRequest(out *output, b []byte) {
	var l controlRequestLine
	if err := json.Unmarshal(b, &l); err != nil || l.Request.Subtype != "can_use_tool" {
		subtype := l.Request.Subtype
		out.progress(p.nextID("ctl"), KindControl, rawLine(b))
		if l.RequestID != "" {
			out.Replies = append(out.Replies, refusal(l.RequestID, fmt.Sprintf("lux: control request %q is not supported", subtype)))
		}
		return
	}
	in := p.interrupts.open(l.RequestID, l.Request)
	out.add(lux.Event{Type: lux.EventInterrupt, Interrupt: &in})
}

func (p *parser) result(out *output, b []byte) {
	p.flushAll(out)
	p.terminal = true
	var l resultLine
	if err := json.Unmarshal(b, &l); err != nil {
		out.add(lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{
			ExitReason: lux.ExitError, Reason: "claude printed a result line that does not decode: " + err.Error(),
		}})
		return
	}
	s := &Summary{
		SessionID: l.SessionID, Subtype: l.Subtype, IsError: l.IsError, StopReason: l.StopReason,
		TerminalReason: l.TerminalReason, APIErrorStatus: l.APIErrorStatus, NumTurns: l.NumTurns,
		DurationMs: l.DurationMs, DurationAPIMs: l.DurationAPIMs, CostUSD: l.TotalCostUSD,
		ModelUsage: nonNull(l.ModelUsage), PermissionDenials: nonEmptyList(l.PermissionDenials),
	}
	if l.Result != nil {
		s.Result = *l.Result
	}
	if l.Usage.reported() {
		u := l.Usage.tokens()
		s.Usage = &u
	}
	if l.IsError || strings.HasPrefix(l.Subtype, "error") {
		out.progress("result", KindResult, s)
		out.add(lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{
			ExitReason: lux.ExitError, Reason: errorReason(l), Usage: s.Usage, CostUSD: l.TotalCostUSD,
		}})
		return
	}
	out.add(lux.Event{Type: lux.EventDone, Done: &lux.Done{
		Usage: s.Usage, CostUSD: l.TotalCostUSD, Turns: l.NumTurns, Summary: s,
	}})
}

// errorReason is the CLI's own message for a result that is an error.
func errorReason(l resultLine) string {
	if l.Result != nil && strings.TrimSpace(*l.Result) != "" {
		return strings.TrimSpace(*l.Result)
	}
	if len(l.Errors) > 0 {
		return strings.Join(l.Errors, "; ")
	}
	detail := l.Subtype
	if l.TerminalReason != "" {
		detail += ", " + l.TerminalReason
	}
	return fmt.Sprintf("claude reported an error (%s)", detail)
}

// decodeAny decodes raw JSON into a value; undecodable or empty raw is nil.
func decodeAny(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return v
}

// resultText is a tool result's content as text: the string, or the text
// parts joined by newlines, or the JSON.
func resultText(raw json.RawMessage) string {
	switch v := decodeAny(raw).(type) {
	case nil:
		return ""
	case string:
		return v
	case []any:
		var parts []string
		for _, item := range v {
			if m, ok := item.(map[string]any); ok {
				if t, ok := m["text"].(string); ok {
					parts = append(parts, t)
				}
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "\n")
		}
	}
	return strings.TrimSpace(string(raw))
}

func nonNull(raw json.RawMessage) json.RawMessage {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" || s == "{}" {
		return nil
	}
	return raw
}

func nonEmptyList(raw json.RawMessage) json.RawMessage {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" || s == "[]" {
		return nil
	}
	return raw
}
