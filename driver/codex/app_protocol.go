package codex

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/luxeval/lux"
)

// rpcMessage is one JSON-RPC message of app-server, in either direction.
// The CLI neither sends nor needs the "jsonrpc" field.
type rpcMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// JSON-RPC error codes the driver replies with.
const (
	rpcMethodNotFound = -32601
	rpcLimitExceeded  = -32000
)

// The ids of the client's requests, in the order they are sent.
const (
	idInitialize  = 1
	idThreadStart = 2
	idTurnStart   = 3
)

// appOptions is what the app-server protocol needs of the config and run.
type appOptions struct {
	parseOptions
	Prompt          string
	Cwd             string
	Sandbox         string
	ApprovalPolicy  string
	ReasoningEffort string
	MaxInterrupts   int
}

// appProtocol drives one turn of `codex app-server` over JSON-RPC: it
// says what to send, turns what the server sends into lux events and
// interrupts, and builds the replies to answered interrupts. It does no
// I/O and is not safe for concurrent use; the events it returns carry no
// time.
//
// The exchange: initialize → initialized → thread/start → turn/start, then
// the server's notifications (items, token usage, turn/completed) and its
// requests (questions, approvals), which become interrupts.
type appProtocol struct {
	opts      appOptions
	ready     bool
	terminal  bool
	threadID  string
	turnID    string
	lastError string
	totals    map[string]appUsage // usage so far by thread (subagents have their own)
	called    toolCalls
	changes   map[string][]fileChange // file changes by item id, for approvals
	pending   map[string]*serverRequest
	asked     int         // interrupts raised
	early     []lux.Event // progress before ready, held back until ready
	seq       int
}

func newAppProtocol(opts appOptions) *appProtocol {
	return &appProtocol{
		opts:    opts,
		called:  toolCalls{},
		totals:  map[string]appUsage{},
		changes: map[string][]fileChange{},
		pending: map[string]*serverRequest{},
	}
}

// Terminal reports whether the turn has ended or the exchange failed.
func (p *appProtocol) Terminal() bool { return p.terminal }

// LastError is the message of the last error the server reported.
func (p *appProtocol) LastError() string { return p.lastError }

// Pending reports how many interrupts await their answer.
func (p *appProtocol) Pending() int { return len(p.pending) }

// Start returns the first message to send: initialize.
func (p *appProtocol) Start() []byte {
	return mustJSON(map[string]any{"id": idInitialize, "method": "initialize", "params": map[string]any{
		"clientInfo":   map[string]any{"name": "lux", "title": "lux", "version": lux.Version},
		"capabilities": map[string]any{"experimentalApi": true},
	}})
}

// Line handles one line from the server. It returns the events to emit
// and the messages to send, in order.
func (p *appProtocol) Line(b []byte) (events []lux.Event, send [][]byte) {
	if p.terminal {
		return nil, nil
	}
	events, send = p.line(b)
	return p.inOrder(events), send
}

// inOrder holds back progress that comes before ready, so that ready is
// always the first event; a terminal event before ready releases it all.
func (p *appProtocol) inOrder(events []lux.Event) []lux.Event {
	if p.ready && len(p.early) == 0 {
		return events
	}
	var out []lux.Event
	for _, e := range events {
		switch {
		case e.Type == lux.EventReady:
			out = append(append(out, e), p.early...)
			p.early = nil
		case !p.ready && !e.Terminal():
			p.early = append(p.early, e)
		case e.Terminal():
			out = append(append(out, p.early...), e)
			p.early = nil
		default:
			out = append(out, e)
		}
	}
	return out
}

func (p *appProtocol) line(b []byte) (events []lux.Event, send [][]byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, nil
	}
	var m rpcMessage
	if b[0] != '{' || json.Unmarshal(b, &m) != nil {
		return []lux.Event{p.progress(KindStdout, map[string]string{"text": string(b)})}, nil
	}
	switch {
	case m.Method != "" && len(m.ID) > 0:
		return p.request(m)
	case m.Method != "":
		return p.notification(m), nil
	default:
		return p.response(m)
	}
}

// response handles the reply to one of the client's requests.
func (p *appProtocol) response(m rpcMessage) ([]lux.Event, [][]byte) {
	var id int
	_ = json.Unmarshal(m.ID, &id)
	method := map[int]string{idInitialize: "initialize", idThreadStart: "thread/start", idTurnStart: "turn/start"}[id]
	if method == "" {
		return nil, nil // not ours
	}
	if m.Error != nil {
		p.terminal = true
		return []lux.Event{errorEvent(fmt.Sprintf("codex app-server: %s failed: %s", method, m.Error.Message))}, nil
	}
	switch id {
	case idInitialize:
		return nil, [][]byte{mustJSON(map[string]any{"method": "initialized"}), p.threadStart()}
	case idThreadStart:
		var r struct {
			Model  string `json:"model"`
			Thread struct {
				ID         string `json:"id"`
				SessionID  string `json:"sessionId"`
				CLIVersion string `json:"cliVersion"`
			} `json:"thread"`
		}
		_ = json.Unmarshal(m.Result, &r)
		p.threadID = r.Thread.ID
		if p.threadID == "" {
			p.terminal = true
			return []lux.Event{errorEvent("codex app-server: thread/start returned no thread id")}, nil
		}
		var out []lux.Event
		if !p.ready {
			p.ready = true
			detail := map[string]any{"mode": string(ModeAppServer), "threadId": p.threadID}
			if r.Thread.SessionID != "" && r.Thread.SessionID != p.threadID {
				detail["sessionId"] = r.Thread.SessionID
			}
			version := p.opts.CLIVersion
			if version == "" {
				version = r.Thread.CLIVersion
			}
			model := r.Model
			if model == "" {
				model = p.opts.Model
			}
			out = append(out, lux.Event{Type: lux.EventReady, Ready: lux.NewReady(AgentID, version, model, detail)})
		}
		return out, [][]byte{p.turnStart()}
	case idTurnStart:
		var r struct {
			Turn struct {
				ID string `json:"id"`
			} `json:"turn"`
		}
		_ = json.Unmarshal(m.Result, &r)
		if p.turnID == "" {
			p.turnID = r.Turn.ID
		}
	}
	return nil, nil
}

func (p *appProtocol) threadStart() []byte {
	return mustJSON(map[string]any{"id": idThreadStart, "method": "thread/start", "params": map[string]any{
		"cwd":            p.opts.Cwd,
		"model":          p.opts.Model,
		"sandbox":        p.opts.Sandbox,
		"approvalPolicy": p.opts.ApprovalPolicy,
		"ephemeral":      true,
	}})
}

func (p *appProtocol) turnStart() []byte {
	params := map[string]any{
		"threadId": p.threadID,
		"input":    []any{map[string]any{"type": "text", "text": p.opts.Prompt, "text_elements": []any{}}},
	}
	if p.opts.ReasoningEffort != "" {
		params["effort"] = p.opts.ReasoningEffort
	}
	return mustJSON(map[string]any{"id": idTurnStart, "method": "turn/start", "params": params})
}

// notification handles a server notification.
func (p *appProtocol) notification(m rpcMessage) []lux.Event {
	switch m.Method {
	case "item/started", "item/completed":
		var n struct {
			Item     json.RawMessage `json:"item"`
			ThreadID string          `json:"threadId"`
		}
		if json.Unmarshal(m.Params, &n) != nil || len(n.Item) == 0 {
			return nil
		}
		return p.item(n.Item, m.Method == "item/completed")
	case "thread/tokenUsage/updated":
		var n struct {
			ThreadID   string `json:"threadId"`
			TokenUsage struct {
				Total *appUsage `json:"total"`
				Last  *appUsage `json:"last"`
			} `json:"tokenUsage"`
		}
		if json.Unmarshal(m.Params, &n) != nil {
			return nil
		}
		if n.TokenUsage.Total != nil {
			p.totals[n.ThreadID] = *n.TokenUsage.Total
		}
		if n.TokenUsage.Last == nil {
			return nil
		}
		return []lux.Event{p.usage(n.TokenUsage.Last.cli().tokens(), "model-call")}
	case "turn/completed":
		return p.turnCompleted(m.Params)
	case "error":
		var n struct {
			Error     json.RawMessage `json:"error"`
			WillRetry bool            `json:"willRetry"`
		}
		_ = json.Unmarshal(m.Params, &n)
		msg := errorMessage(n.Error)
		if !n.WillRetry {
			p.lastError = msg
		}
		return []lux.Event{p.progress(KindCodexError, map[string]any{"message": msg, "willRetry": n.WillRetry})}
	case "configWarning", "warning", "deprecationNotice", "guardianWarning":
		var n struct {
			Summary string          `json:"summary"`
			Message string          `json:"message"`
			Details json.RawMessage `json:"details"`
		}
		_ = json.Unmarshal(m.Params, &n)
		msg := n.Summary
		if msg == "" {
			msg = n.Message
		}
		payload := map[string]any{"message": msg, "source": m.Method}
		if d := rawOrEmpty(n.Details); len(n.Details) > 0 && string(n.Details) != "null" {
			payload["details"] = d
		}
		return []lux.Event{p.progress(KindWarning, payload)}
	}
	return nil
}

// turnCompleted ends the run when the thread's turn completes.
func (p *appProtocol) turnCompleted(params json.RawMessage) []lux.Event {
	var n struct {
		ThreadID string `json:"threadId"`
		Turn     struct {
			ID         string          `json:"id"`
			Status     string          `json:"status"`
			Error      json.RawMessage `json:"error"`
			DurationMs *int64          `json:"durationMs"`
		} `json:"turn"`
	}
	if json.Unmarshal(params, &n) != nil {
		return nil
	}
	if n.ThreadID != p.threadID || (p.turnID != "" && n.Turn.ID != p.turnID) {
		return nil // another thread's turn (a subagent's)
	}
	p.terminal = true
	switch n.Turn.Status {
	case "completed":
		summary := map[string]any{"threadId": p.threadID, "turnId": n.Turn.ID}
		if n.Turn.DurationMs != nil {
			summary["durationMs"] = *n.Turn.DurationMs
		}
		return []lux.Event{{Type: lux.EventDone, Done: &lux.Done{Turns: 1, Summary: summary, Usage: p.spent()}}}
	case "failed", "interrupted":
		msg := errorMessage(n.Turn.Error)
		if msg == "" {
			msg = p.lastError
		}
		if msg == "" {
			msg = "codex reported the turn " + n.Turn.Status
		}
		ev := errorEvent(msg)
		ev.Error.Usage = p.spent()
		return []lux.Event{ev}
	}
	return []lux.Event{errorEvent(fmt.Sprintf("codex app-server: turn/completed with status %q", n.Turn.Status))}
}

// spent is the usage of every thread so far, from the CLI's running
// totals; nil when it reported none.
func (p *appProtocol) spent() *lux.TokenUsage {
	if len(p.totals) == 0 {
		return nil
	}
	var u lux.TokenUsage
	for _, t := range p.totals {
		u = u.Add(t.cli().tokens())
	}
	return &u
}

func (p *appProtocol) progress(kind string, v any) lux.Event {
	p.seq++
	return progressEvent(fmt.Sprintf("%s-%d", kind, p.seq), kind, v)
}

func (p *appProtocol) usage(u lux.TokenUsage, label string) lux.Event {
	p.seq++
	return progressEvent(fmt.Sprintf("usage-%d", p.seq), lux.KindUsage, &lux.UsageReport{TokenUsage: u, Label: label})
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("codex: encode %T: %v", v, err)) // only maps of plain values are encoded
	}
	return b
}
