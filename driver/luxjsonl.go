package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/luxeval/lux"
)

// LuxJSONL is the Protocol of lux-jsonl, the line protocol any program can
// speak to be evaluated (PROTOCOL.md at the module root documents it in
// full). The agent writes one JSON object per line on
// stdout:
//
//	{"type":"ready","agentId":"my-agent","agentVersion":"1.2","model":"m","detail":{...}}
//	{"type":"progress","id":"p1","kind":"tool-call","payload":{...},"ts":1717000000000}
//	{"type":"interrupt","kind":"ask","id":"q1","question":"Which database?","context":{...}}
//	{"type":"interrupt","kind":"ask","id":"q2","question":"Colour?\nSize?",
//	 "questions":[{"id":"colour","text":"Colour?"},{"id":"size","text":"Size?","options":[{"label":"L"}]}]}
//	{"type":"interrupt","kind":"approve","id":"a1","request":{...}}
//	{"type":"interrupt","kind":"custom","id":"c1","payload":{...}}
//	{"type":"done","summary":{"usage":{"input":1,"output":2,"cacheRead":0,"cacheCreation":0},"cost":0.01}}
//	{"type":"error","exitReason":"error","reason":"no API key"}
//	{"type":"error","reason":"API error 400","summary":{"usage":{"input":300,"output":10},"cost":0.001}}
//
// An error line may carry a summary like done's: what the agent spent
// before it failed is then kept in the run's usage and cost. The ready
// line's detail keys sessionId, threadId, pid and cwd describe one
// session and stay out of the run's identity (see lux.Ready.Detail).
//
// Lines that are not JSON, or JSON that does not fit one of these shapes,
// are not part of the protocol and are ignored, so an agent may log to
// stdout; but they are counted, and the count with the first few of them
// is recorded as a progress event of kind lux.KindOffProtocol before the
// run's terminal event (see Diagnostic), so that a line meant as "done"
// that lux did not understand shows in the record. Answers are written to the agent's stdin, one JSON object per
// line:
//
//	{"type":"answer","id":"q1","text":"Postgres"}
//	{"type":"answer","id":"q2","text":"","answers":{"colour":"Blue","size":"L"}}
//	{"type":"approve","id":"a1","reason":"fine"}   (or "deny")
//	{"type":"customToolResponse","id":"c1","payload":{...}}
//
// A LuxJSONL counts the lines of one session: use a new one per session.
// Its zero value is ready to use.
type LuxJSONL struct {
	mu       sync.Mutex
	off      lux.OffProtocol
	reported int // off.Dropped when the last diagnostic was made
}

var _ Protocol = (*LuxJSONL)(nil)

// OffProtocolKept is how many ignored lines a LuxJSONL keeps, each clipped
// to OffProtocolLineBytes.
const (
	OffProtocolKept      = 3
	OffProtocolLineBytes = 200
)

// Parse decodes one line (see DecodeLuxJSONL). Before a terminal event it
// returns the diagnostic of the ignored lines, if any.
func (p *LuxJSONL) Parse(_ context.Context, line []byte, _ *Stdin) ([]lux.Event, error) {
	ev, ok := DecodeLuxJSONL(line)
	if !ok {
		p.drop(line)
		return nil, nil
	}
	if ev.Terminal() {
		if d := p.Diagnostic(); d != nil {
			return []lux.Event{*d, ev}, nil
		}
	}
	return []lux.Event{ev}, nil
}

func (p *LuxJSONL) drop(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return // blank lines are nobody's mistake
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.off.Dropped++
	if len(p.off.First) < OffProtocolKept {
		s := string(line)
		if len(s) > OffProtocolLineBytes {
			s = strings.ToValidUTF8(s[:OffProtocolLineBytes], "") + "…"
		}
		p.off.First = append(p.off.First, s)
	}
}

// Diagnostic returns the progress event (kind lux.KindOffProtocol) that
// reports the lines ignored since the session began, or nil when none
// were ignored since the last one. A driver whose agent can end without a
// terminal event calls it then (subprocess does, from OnExit).
func (p *LuxJSONL) Diagnostic() *lux.Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.off.Dropped == p.reported {
		return nil
	}
	p.reported = p.off.Dropped
	off := lux.OffProtocol{Dropped: p.off.Dropped, First: append([]string(nil), p.off.First...)}
	ev := lux.Event{Type: lux.EventProgress, Time: time.Now().UTC()}
	pr := lux.NewProgress("off-protocol", lux.KindOffProtocol, off)
	ev.Progress = &pr
	return &ev
}

// Answer writes the answer line (see EncodeLuxJSONLAnswer).
func (*LuxJSONL) Answer(ctx context.Context, _ lux.Interrupt, a lux.Answer, stdin *Stdin) error {
	b, err := EncodeLuxJSONLAnswer(a)
	if err != nil {
		return err
	}
	return stdin.WriteLine(ctx, b)
}

// luxLine is every field a lux-jsonl line may carry. Pointers and raw
// messages tell a missing field from an empty one.
type luxLine struct {
	Type string `json:"type"`
	// ready
	AgentID      *string        `json:"agentId"`
	AgentVersion string         `json:"agentVersion"`
	Model        string         `json:"model"`
	Detail       map[string]any `json:"detail"`
	// progress, interrupt
	ID      *string         `json:"id"`
	Kind    *string         `json:"kind"`
	Payload json.RawMessage `json:"payload"`
	TS      json.RawMessage `json:"ts"`
	// interrupt
	Question  *string         `json:"question"`
	Questions json.RawMessage `json:"questions"`
	Request   json.RawMessage `json:"request"`
	Context   json.RawMessage `json:"context"`
	// done, error
	Summary json.RawMessage `json:"summary"`
	// error
	ExitReason *string `json:"exitReason"`
	Reason     *string `json:"reason"`
}

// DecodeLuxJSONL decodes one lux-jsonl stdout line into an event. It
// reports false for a line that is not part of the protocol.
func DecodeLuxJSONL(line []byte) (lux.Event, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return lux.Event{}, false
	}
	var l luxLine
	if err := json.Unmarshal(line, &l); err != nil {
		return lux.Event{}, false
	}
	switch l.Type {
	case "ready":
		if l.AgentID == nil {
			return lux.Event{}, false
		}
		return lux.Event{Type: lux.EventReady, Ready: lux.NewReady(*l.AgentID, l.AgentVersion, l.Model, l.Detail)}, true
	case "progress":
		return decodeProgress(l)
	case "interrupt":
		return decodeInterrupt(l)
	case "done":
		return lux.Event{Type: lux.EventDone, Done: decodeDone(l.Summary)}, true
	case "error":
		exit := lux.ExitError
		if l.ExitReason != nil {
			exit = lux.ExitReason(*l.ExitReason)
			switch exit {
			case lux.ExitError, lux.ExitIdleTimeout, lux.ExitMaxInteractions:
			default:
				return lux.Event{}, false
			}
		}
		if l.Reason == nil {
			return lux.Event{}, false
		}
		spent := decodeDone(l.Summary)
		return lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{
			ExitReason: exit, Reason: *l.Reason, Usage: spent.Usage, CostUSD: spent.CostUSD,
		}}, true
	}
	return lux.Event{}, false
}

// maxTSMillis is the last millisecond of the year 9999, the latest time a
// run record can hold.
const maxTSMillis = 253402300799999

func decodeProgress(l luxLine) (lux.Event, bool) {
	if l.ID == nil || l.Kind == nil {
		return lux.Event{}, false
	}
	var ts time.Time
	if len(l.TS) > 0 && !bytes.Equal(l.TS, []byte("null")) {
		var ms float64
		if err := json.Unmarshal(l.TS, &ms); err != nil || ms < 0 || ms > maxTSMillis {
			return lux.Event{}, false
		}
		ts = time.UnixMilli(int64(ms))
	}
	// The payload takes the typed form of its kind, as in a run record.
	raw, err := json.Marshal(struct {
		Type    string          `json:"type"`
		ID      string          `json:"id"`
		Kind    string          `json:"kind"`
		Payload json.RawMessage `json:"payload,omitempty"`
	}{"progress", *l.ID, *l.Kind, nullToEmpty(l.Payload)})
	if err != nil {
		return lux.Event{}, false
	}
	var ev lux.Event
	if err := json.Unmarshal(raw, &ev); err != nil || ev.Progress == nil {
		return lux.Event{}, false
	}
	ev.Time = ts
	return ev, true
}

func decodeInterrupt(l luxLine) (lux.Event, bool) {
	if l.ID == nil || l.Kind == nil {
		return lux.Event{}, false
	}
	in := lux.Interrupt{Kind: lux.InterruptKind(*l.Kind), ID: *l.ID, Context: anyOf(l.Context)}
	switch in.Kind {
	case lux.Ask:
		if l.Question == nil {
			return lux.Event{}, false
		}
		in.Question = *l.Question
		if len(l.Questions) > 0 {
			var qs []lux.Question
			if json.Unmarshal(l.Questions, &qs) == nil {
				QuestionIDs(qs)
				in.Questions = qs
			}
		}
	case lux.Approve:
		if len(l.Request) == 0 {
			return lux.Event{}, false
		}
		in.Request = anyOf(l.Request)
	case lux.Custom:
		if len(l.Payload) == 0 {
			return lux.Event{}, false
		}
		in.Payload = anyOf(l.Payload)
	default:
		return lux.Event{}, false
	}
	return lux.Event{Type: lux.EventInterrupt, Interrupt: &in}, true
}

// decodeDone keeps the summary and reads what lux understands in it:
// usage {input, output, cacheRead, cacheCreation} and cost (USD, not
// negative), and turns.
func decodeDone(summary json.RawMessage) *lux.Done {
	d := &lux.Done{Summary: anyOf(summary)}
	var s struct {
		Usage map[string]json.RawMessage `json:"usage"`
		Cost  json.RawMessage            `json:"cost"`
		Turns json.RawMessage            `json:"turns"`
	}
	if json.Unmarshal(summary, &s) != nil {
		return d
	}
	if s.Usage != nil {
		var u lux.TokenUsage
		found := false
		for key, dst := range map[string]*int64{
			"input": &u.Input, "output": &u.Output, "cacheRead": &u.CacheRead, "cacheCreation": &u.CacheCreation,
		} {
			if n, ok := count(s.Usage[key]); ok {
				*dst, found = n, true
			}
		}
		if found {
			d.Usage = &u
		}
	}
	var cost float64
	if len(s.Cost) > 0 && json.Unmarshal(s.Cost, &cost) == nil && cost >= 0 {
		d.CostUSD = &cost
	}
	if n, ok := count(s.Turns); ok {
		d.Turns = int(n)
	}
	return d
}

// count reads a non-negative whole number.
func count(raw json.RawMessage) (int64, bool) {
	var f float64
	if len(raw) == 0 || json.Unmarshal(raw, &f) != nil || f < 0 || f != math.Trunc(f) || f > math.MaxInt64/2 {
		return 0, false
	}
	return int64(f), true
}

func anyOf(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

func nullToEmpty(raw json.RawMessage) json.RawMessage {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	return raw
}

// EncodeLuxJSONLAnswer encodes the stdin line (without newline) that
// answers an interrupt in lux-jsonl.
func EncodeLuxJSONLAnswer(a lux.Answer) ([]byte, error) {
	var v any
	switch a.Kind {
	case lux.Ask:
		v = struct {
			Type    string            `json:"type"`
			ID      string            `json:"id"`
			Text    string            `json:"text"`
			Answers map[string]string `json:"answers,omitempty"`
		}{"answer", a.ID, a.Text, a.Answers}
	case lux.Approve:
		typ := "deny"
		if a.Approved {
			typ = "approve"
		}
		v = struct {
			Type   string `json:"type"`
			ID     string `json:"id"`
			Reason string `json:"reason,omitempty"`
		}{typ, a.ID, a.Reason}
	case lux.Custom:
		v = struct {
			Type    string `json:"type"`
			ID      string `json:"id"`
			Payload any    `json:"payload"`
		}{"customToolResponse", a.ID, a.Payload}
	default:
		return nil, fmt.Errorf("driver: lux-jsonl cannot answer a %q interrupt", a.Kind)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("driver: encode answer %s %q: %w", a.Kind, a.ID, err)
	}
	return b, nil
}
