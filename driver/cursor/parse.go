package cursor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/luxeval/lux"
)

// AgentID is the agent id the driver reports when ready.
const AgentID = "cursor"

// Progress kinds this driver emits besides the shared ones
// (agent-message, reasoning, tool-call, tool-result).
const (
	// KindInteractionQuery is an interaction_query line: a request the
	// CLI put to its user in print mode and answered itself (approving
	// with --force, rejecting otherwise). Its payload is the line as printed.
	KindInteractionQuery = "interaction-query"
	// KindCursorEvent is any other line the driver does not translate
	// (system notifications, retry, connection, types added later). Its
	// payload is the line as printed.
	KindCursorEvent = "cursor-event"
	// KindStdout is a stdout line that is not a JSON object. Its payload
	// is {"text": <the line>}.
	KindStdout = "stdout-text"
)

// parseOptions is what the parser knows of the launch.
type parseOptions struct {
	Model      string // the model the config asks for (an id, e.g. "auto")
	CLIVersion string // the CLI's --version, when known
	// Partial is true when --stream-partial-output was passed. Partial
	// output is also recognised from the lines themselves.
	Partial bool
}

// parser turns the CLI's stream-json lines into lux events, one line at a
// time. It keeps what correlating lines needs (text being streamed, tool
// names by call id) and does no I/O; the events it returns carry no time.
type parser struct {
	opts parseOptions

	ready    bool
	terminal bool
	seq      int

	sessionID string
	// pending is text being accumulated: thinking deltas, or assistant
	// deltas under --stream-partial-output. pendingKind is KindReasoning
	// or KindAgentMessage.
	pending     strings.Builder
	pendingKind string
	partial     bool
	started     map[string]bool // call ids with a tool-call event
}

func newParser(opts parseOptions) *parser {
	return &parser{opts: opts, partial: opts.Partial, started: map[string]bool{}}
}

// Terminal reports whether the result line has been seen.
func (p *parser) Terminal() bool { return p.terminal }

// Line translates one stdout line (without its newline) into events.
// After the terminal event it returns nothing.
func (p *parser) Line(b []byte) []lux.Event {
	if p.terminal {
		return nil
	}
	l, ok := decodeLine(b)
	if !ok {
		text := strings.TrimRight(string(b), "\r")
		if strings.TrimSpace(text) == "" {
			return nil
		}
		return p.with(p.flush(), p.progress(KindStdout, "", map[string]string{"text": text}))
	}
	typ, sub := l.str("type"), l.str("subtype")
	if typ == "system" && sub == "init" && !p.ready {
		return []lux.Event{p.readyEvent(l)}
	}
	var out []lux.Event
	if !p.ready {
		out = append(out, p.readyEvent(nil))
	}
	if s := l.str("session_id"); s != "" && p.sessionID == "" {
		p.sessionID = s
	}
	switch typ {
	case "user":
		// The CLI echoes the prompt; the record has it already.
		return append(out, p.flush()...)
	case "thinking":
		return append(out, p.thinking(sub, l)...)
	case "assistant":
		return append(out, p.assistant(l)...)
	case "tool_call":
		out = append(out, p.flush()...)
		return append(out, p.toolCall(sub, l)...)
	case "interaction_query":
		out = append(out, p.flush()...)
		return append(out, p.progress(KindInteractionQuery, "", rawLine(b)))
	case "result":
		out = append(out, p.flush()...)
		return append(out, p.result(l))
	default:
		out = append(out, p.flush()...)
		return append(out, p.progress(KindCursorEvent, "", rawLine(b)))
	}
}

// Finish returns what is still buffered when stdout ends without a result.
func (p *parser) Finish() []lux.Event {
	if p.terminal || !p.ready {
		return nil
	}
	return p.flush()
}

func (p *parser) with(evs []lux.Event, more ...lux.Event) []lux.Event {
	if !p.ready {
		evs = append([]lux.Event{p.readyEvent(nil)}, evs...)
	}
	return append(evs, more...)
}

func (p *parser) readyEvent(init line) lux.Event {
	p.ready = true
	r := lux.NewReady(AgentID, p.opts.CLIVersion, p.opts.Model, nil)
	detail := map[string]any{}
	if init == nil {
		detail["init"] = "missing"
	} else {
		p.sessionID = init.str("session_id")
		for key, name := range map[string]string{
			"session_id": "sessionId", "model": "modelName", "apiKeySource": "apiKeySource",
			"cwd": "cwd", "permissionMode": "permissionMode",
		} {
			if s := init.str(key); s != "" {
				detail[name] = s
			}
		}
		if r.Model == "" {
			r.Model = init.str("model")
		}
	}
	if p.opts.CLIVersion != "" {
		detail["cliVersion"] = p.opts.CLIVersion
	}
	r.Detail = detail
	return lux.Event{Type: lux.EventReady, Ready: r}
}

func (p *parser) thinking(sub string, l line) []lux.Event {
	var out []lux.Event
	if p.pendingKind != lux.KindReasoning {
		out = p.flush()
	}
	p.pendingKind = lux.KindReasoning
	switch sub {
	case "delta":
		p.pending.WriteString(l.str("text"))
	case "completed":
		out = append(out, p.flush()...)
	default:
		p.pending.WriteString(l.str("text"))
	}
	return out
}

// assistant handles an assistant line. Without --stream-partial-output
// every line is a whole message. With it, lines come in three kinds
// (CURSOR-CLI.md §4.4): a delta (timestamp_ms, no model_call_id) to
// append; a flush before a tool call (both) and a final flush (neither),
// which repeat the deltas and are skipped.
func (p *parser) assistant(l line) []lux.Event {
	text := messageText(l["message"])
	hasTS, hasCall := l.has("timestamp_ms"), l.has("model_call_id")
	if hasTS && !hasCall {
		p.partial = true
	}
	if !p.partial {
		out := p.flush()
		if strings.TrimSpace(text) == "" {
			return out
		}
		return append(out, p.progress(lux.KindAgentMessage, "", &lux.Message{Text: text}))
	}
	if hasTS && !hasCall {
		var out []lux.Event
		if p.pendingKind != lux.KindAgentMessage {
			out = p.flush()
		}
		p.pendingKind = lux.KindAgentMessage
		p.pending.WriteString(text)
		return out
	}
	return p.flush()
}

// flush returns the accumulated text as one event and clears it.
func (p *parser) flush() []lux.Event {
	kind, text := p.pendingKind, p.pending.String()
	p.pending.Reset()
	p.pendingKind = ""
	if kind == "" || strings.TrimSpace(text) == "" {
		return nil
	}
	return []lux.Event{p.progress(kind, "", &lux.Message{Text: text})}
}

func (p *parser) toolCall(sub string, l line) []lux.Event {
	tc := decodeToolCall(l["tool_call"])
	id := firstNonEmpty(l.str("call_id"), tc.ID)
	if id == "" {
		p.seq++
		id = fmt.Sprintf("call-%d", p.seq)
	}
	var out []lux.Event
	if !p.started[id] {
		// A completed line without its started line still counts as a call.
		p.started[id] = true
		out = append(out, p.progress(lux.KindToolCall, "tc-"+id, &lux.ToolCall{Name: tc.Name, Input: tc.Args, ToolUseID: id}))
	}
	if sub != "completed" {
		return out
	}
	isErr, text, content, structured := resultFacts(tc)
	res := &lux.ToolResult{
		Name: tc.Name, ToolUseID: id, Content: content, StructuredContent: structured,
		IsError: isErr, Text: text,
	}
	if tc.StartedMS > 0 && tc.EndedMS >= tc.StartedMS {
		d := tc.EndedMS - tc.StartedMS
		res.DurationMs = &d
	}
	return append(out, p.progress(lux.KindToolResult, "tr-"+id, res))
}

func (p *parser) result(l line) lux.Event {
	p.terminal = true
	text := l.str("result")
	isErr := false
	_ = json.Unmarshal(l["is_error"], &isErr)
	if isErr || strings.HasPrefix(l.str("subtype"), "error") {
		reason := text
		if strings.TrimSpace(reason) == "" {
			reason = "cursor-agent reported an error"
		}
		return lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{
			ExitReason: lux.ExitError, Reason: reason, Usage: parseUsage(l), CostUSD: parseCost(l),
		}}
	}
	summary := map[string]any{}
	if s := firstNonEmpty(l.str("session_id"), p.sessionID); s != "" {
		summary["sessionId"] = s
	}
	if s := l.str("request_id"); s != "" {
		summary["requestId"] = s
	}
	if v, ok := l.num("duration_ms"); ok {
		summary["durationMs"] = v
	}
	if v, ok := l.num("duration_api_ms"); ok {
		summary["durationApiMs"] = v
	}
	if text != "" {
		summary["result"] = text
	}
	return lux.Event{Type: lux.EventDone, Done: &lux.Done{
		Usage:   parseUsage(l),
		CostUSD: parseCost(l),
		Summary: summary,
	}}
}

func (p *parser) progress(kind, id string, v any) lux.Event {
	if id == "" {
		p.seq++
		id = fmt.Sprintf("%s-%d", shortKind(kind), p.seq)
	}
	pr := lux.NewProgress(id, kind, v)
	return lux.Event{Type: lux.EventProgress, Progress: &pr}
}

// rawLine copies a line to keep as a payload: the reader may reuse its buffer.
func rawLine(b []byte) json.RawMessage {
	return json.RawMessage(bytes.Clone(bytes.TrimSpace(b)))
}

func shortKind(kind string) string {
	switch kind {
	case lux.KindAgentMessage:
		return "am"
	case lux.KindReasoning:
		return "rs"
	case KindInteractionQuery:
		return "iq"
	case KindStdout:
		return "out"
	default:
		return "ev"
	}
}
