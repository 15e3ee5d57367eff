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
		ev := errorEvent(msg)
		if l.Usage != nil { // codex 0.169.0 reports none with a failed turn
			u := l.Usage.tokens()
			ev.Error.Usage = &u
		}
		return []lux.Event{ev}
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
	return []lux.Event{{Type: lux.EventReady, Ready: lux.NewReady(AgentID, p.opts.CLIVersion, p.opts.Model, detail)}}
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
		call, result := fileChangeCall(it.ID, it.Changes, it.Status)
		return p.called.events(call, completed, result)
	case "mcp_tool_call":
		call := &lux.ToolCall{Name: it.Tool, Input: rawOrEmpty(it.Arguments), ToolUseID: it.ID}
		return p.called.events(call, completed, func() *lux.ToolResult {
			return mcpResult(it.ID, it.Tool, it.Result, it.Error, it.Status)
		})
	case "web_search":
		call, result := webSearch(it.ID, it.Query)
		return p.called.events(call, completed, result)
	}
	return otherItem(it.ID, raw, completed)
}

func (p *execParser) progress(kind string, v any) lux.Event {
	p.seq++
	return progressEvent(fmt.Sprintf("%s-%d", kind, p.seq), kind, v)
}

func (p *execParser) usage(u lux.TokenUsage, label string) lux.Event {
	p.seq++
	return progressEvent(fmt.Sprintf("usage-%d", p.seq), lux.KindUsage, &lux.UsageReport{TokenUsage: u, Label: label})
}
