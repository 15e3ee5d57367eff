package lux

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/luxeval/lux/internal/version"
)

// EventType names the kind of a run event.
type EventType string

// The event types of a run's trajectory (events.jsonl holds one per line).
const (
	EventReady     EventType = "ready"     // the agent is running; see Ready
	EventProgress  EventType = "progress"  // a message, tool call, tool result, usage report, ...
	EventInterrupt EventType = "interrupt" // the agent waits for an answer
	EventResponded EventType = "responded" // the answer given to an interrupt
	EventDone      EventType = "done"      // terminal: the agent finished
	EventError     EventType = "error"     // terminal: the run ended in error
	EventLifecycle EventType = "lifecycle" // a harness stage began
)

// Event is one entry of a run's trajectory. Exactly the field that matches
// Type is set. On disk an event is one flat JSON object whose "type" field
// names the kind, the layout of the lux-jsonl protocol.
type Event struct {
	Type      EventType
	Time      time.Time // when the harness saw it; zero for ready
	Ready     *Ready
	Progress  *Progress
	Interrupt *Interrupt
	Answer    *Answer // for EventResponded
	Done      *Done
	Error     *ErrorEvent
	Stage     Stage // for EventLifecycle
}

// Terminal reports whether e ends the agent's session (done or error).
func (e Event) Terminal() bool { return e.Type == EventDone || e.Type == EventError }

// Ready says the agent started and what it is.
type Ready struct {
	AgentID string `json:"agentId"`
	// AgentVersion is the agent's release number, normalized (see
	// the version package of the module): "2.1.328", "0.169.0". It is part of a run's
	// identity.
	AgentVersion string `json:"agentVersion,omitempty"`
	// AgentVersionRaw is the version as the agent or its CLI reported it,
	// when that differs from AgentVersion: "2.1.328 (Claude Code)".
	AgentVersionRaw string `json:"agentVersionRaw,omitempty"`
	Model           string `json:"model,omitempty"`
	// Detail is driver specific: session id, permission mode, tools, ...
	// The per-session keys (sessionId, threadId, pid, cwd) are recorded but
	// never part of a run's identity.
	Detail map[string]any `json:"detail,omitempty"`
}

// NewReady returns a ready event payload for agent id with version
// normalized (its release number alone) and the raw string kept when it
// differs.
func NewReady(agentID, version, model string, detail map[string]any) *Ready {
	r := &Ready{AgentID: agentID, Model: model, Detail: detail}
	r.SetVersion(version)
	return r
}

// SetVersion sets AgentVersion to the normalized form of raw and keeps raw
// in AgentVersionRaw when it differs. A raw string holding no release
// number is kept as AgentVersion, so nothing the agent said is lost.
func (r *Ready) SetVersion(raw string) {
	raw = strings.TrimSpace(raw)
	v := version.Normalize(raw)
	switch {
	case v == "":
		r.AgentVersion, r.AgentVersionRaw = raw, ""
	case v == raw:
		r.AgentVersion, r.AgentVersionRaw = v, ""
	default:
		r.AgentVersion, r.AgentVersionRaw = v, raw
	}
}

// InterruptKind is what an interrupt asks of the user.
type InterruptKind string

// The kinds of interrupt.
const (
	Ask     InterruptKind = "ask"     // a question; answered with text
	Approve InterruptKind = "approve" // a permission request; approved or denied
	Custom  InterruptKind = "custom"  // a driver-defined request; answered with a payload
)

// Interrupt is the agent waiting for the user. The agent does not continue
// until the answer with the same Kind and ID is delivered.
//
// The built-in drivers give interrupts one shape: an ask has Question (the
// questions' texts, one per line) and Questions (each with its id and
// options); an approve has an *Approval as Request (action, tool, command,
// paths, description, input). Raw keeps the CLI's own request beside it.
type Interrupt struct {
	Kind      InterruptKind `json:"kind"`
	ID        string        `json:"id"`
	Question  string        `json:"question,omitempty"`  // Ask
	Questions []Question    `json:"questions,omitempty"` // Ask: each question, when the agent asks several or offers options
	Request   any           `json:"request,omitempty"`   // Approve: what the agent wants to do, an *Approval from the built-in drivers
	Payload   any           `json:"payload,omitempty"`   // Custom
	Context   any           `json:"context,omitempty"`   // anything that helps answer
	Raw       any           `json:"raw,omitempty"`       // the CLI's own request, as it sent it
}

// Text returns what the interrupt asks, as text: the question, or the
// request or payload as JSON.
func (in Interrupt) Text() string {
	switch in.Kind {
	case Ask:
		return in.Question
	case Approve:
		return textOf(in.Request)
	default:
		return textOf(in.Payload)
	}
}

func textOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return ""
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "> out.txt" must read as written
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Answer is the user's reply to an interrupt of the same Kind and ID.
type Answer struct {
	Kind InterruptKind `json:"kind"`
	ID   string        `json:"id"`
	Text string        `json:"text,omitempty"` // Ask: the answer, to every question Answers leaves out
	// Answers are the answers of an ask with several questions, by
	// Question.ID (see AnswerFor).
	Answers  map[string]string `json:"answers,omitempty"`
	Approved bool              `json:"approved,omitempty"` // Approve
	Reason   string            `json:"reason,omitempty"`   // Approve: optional reason
	Payload  any               `json:"payload,omitempty"`  // Custom
}

// Matches returns an error wrapping ErrAnswerMismatch unless a answers in.
func (a Answer) Matches(in Interrupt) error {
	if a.Kind != in.Kind || a.ID != in.ID {
		return fmt.Errorf("%w: interrupt %s %q answered with %s %q", ErrAnswerMismatch, in.Kind, in.ID, a.Kind, a.ID)
	}
	return nil
}

// Progress kinds the built-in drivers and assertions share. Drivers may
// emit other kinds; their payload is kept raw.
const (
	KindAgentMessage = "agent-message" // Progress.Message
	KindReasoning    = "reasoning"     // Progress.Message
	KindToolCall     = "tool-call"     // Progress.ToolCall
	KindToolResult   = "tool-result"   // Progress.ToolResult
	KindUsage        = "usage"         // Progress.Usage: tokens of one model call
	// KindOffProtocol reports, in Payload (an OffProtocol), the lines of
	// the agent's output that were not part of its protocol and were
	// ignored: recorded so that a misspelt "done" line is visible.
	KindOffProtocol = "off-protocol"
)

// OffProtocol is the payload of a KindOffProtocol progress event.
type OffProtocol struct {
	Dropped int      `json:"dropped"` // lines ignored so far
	First   []string `json:"first"`   // the first few of them, each clipped
}

// Progress is something the agent did. For the shared kinds the typed field
// is set; any other kind carries Payload.
type Progress struct {
	ID         string
	Kind       string
	Message    *Message     // agent-message, reasoning
	ToolCall   *ToolCall    // tool-call
	ToolResult *ToolResult  // tool-result
	Usage      *UsageReport // usage
	Payload    json.RawMessage
}

// Message is text the agent wrote (or its reasoning).
type Message struct {
	Text            string `json:"text"`
	ParentToolUseID string `json:"parentToolUseId,omitempty"` // set when a subagent wrote it
}

// ToolCall is the agent invoking a tool.
type ToolCall struct {
	Name            string `json:"name"`
	Input           any    `json:"input"`
	ToolUseID       string `json:"toolUseId"`
	ParentToolUseID string `json:"parentToolUseId,omitempty"`
}

// AsToolCall returns the call of a tool-call progress event; ok is false
// for any other event, and the call is nil when its payload did not decode.
func (e Event) AsToolCall() (c *ToolCall, ok bool) {
	if e.Type != EventProgress || e.Progress == nil || e.Progress.Kind != KindToolCall {
		return nil, false
	}
	return e.Progress.ToolCall, true
}

// AsToolResult is AsToolCall for tool-result events.
func (e Event) AsToolResult() (r *ToolResult, ok bool) {
	if e.Type != EventProgress || e.Progress == nil || e.Progress.Kind != KindToolResult {
		return nil, false
	}
	return e.Progress.ToolResult, true
}

// WellFormed reports whether c names its tool and its tool use (a call
// without them cannot be told apart or correlated with its result).
func (c *ToolCall) WellFormed() bool { return c != nil && c.Name != "" && c.ToolUseID != "" }

// ToolResult is the outcome of a tool call, correlated by ToolUseID.
type ToolResult struct {
	Name              string         `json:"name"`
	ToolUseID         string         `json:"toolUseId"`
	Content           any            `json:"content"`
	StructuredContent map[string]any `json:"structuredContent,omitempty"`
	IsError           bool           `json:"isError"`
	Text              string         `json:"text"`
	DurationMs        *float64       `json:"durationMs,omitempty"`
	ParentToolUseID   string         `json:"parentToolUseId,omitempty"`
}

// UsageReport is the token usage of one model call.
type UsageReport struct {
	TokenUsage
	Label string `json:"label,omitempty"`
}

// Done is the agent finishing normally, with what it reported.
type Done struct {
	Usage   *TokenUsage `json:"usage,omitempty"`   // total agent usage; nil when the agent reports none
	CostUSD *float64    `json:"costUsd,omitempty"` // nil when the agent reports no cost
	Turns   int         `json:"turns,omitempty"`
	Summary any         `json:"summary,omitempty"` // anything else the driver reports
}

// ExitReason is why a run ended.
type ExitReason string

// The exit reasons.
const (
	ExitDone            ExitReason = "done"             // the agent finished
	ExitError           ExitReason = "error"            // the agent or the harness failed
	ExitIdleTimeout     ExitReason = "idle-timeout"     // no event within the idle timeout
	ExitTimeout         ExitReason = "timeout"          // the run's wall-clock limit passed
	ExitMaxInteractions ExitReason = "max-interactions" // more interrupts than allowed
	ExitCancelled       ExitReason = "cancelled"        // the run's context was cancelled
	ExitBudget          ExitReason = "budget"           // the agent spent more than the run's maxTokens or maxCostUsd
)

// ErrorEvent is a run ending in error, with what the agent had spent
// when it failed, as far as it reported it: a run that fails keeps its
// usage and cost, so token and cost budgets still see them.
type ErrorEvent struct {
	ExitReason ExitReason  `json:"exitReason"`
	Reason     string      `json:"reason"`
	Usage      *TokenUsage `json:"usage,omitempty"`   // nil when the agent reported none
	CostUSD    *float64    `json:"costUsd,omitempty"` // nil when the agent reported no cost
}

// Stage is a harness lifecycle stage recorded in the trajectory.
type Stage string

// The lifecycle stages, in order.
const (
	StagePrepareAnswerer Stage = "prepare-answerer"
	StageStartDriver     Stage = "start-driver"
	StageCollectStart    Stage = "collect-start"
	StageCollectEnd      Stage = "collect-end"
	StageGradeStart      Stage = "grade-start"
	StageGradeEnd        Stage = "grade-end"
	StageClose           Stage = "close"
)

// NewProgress returns a progress event of the given kind whose payload is
// the typed value v — a Message, ToolCall, ToolResult or UsageReport, as a
// value or a pointer — or anything JSON-encodable for other kinds.
//
// The shared kinds (KindAgentMessage, KindReasoning, KindToolCall,
// KindToolResult, KindUsage) take their typed value only: assertions read
// them there. Another payload for one of them, or a typed value under the
// kind of another, is a programming error that would make an event no
// assertion can see, and NewProgress panics naming it.
func NewProgress(id, kind string, v any) Progress {
	p := Progress{ID: id, Kind: kind}
	switch x := v.(type) {
	case Message:
		p.Message = &x
	case *Message:
		p.Message = x
	case ToolCall:
		p.ToolCall = &x
	case *ToolCall:
		p.ToolCall = x
	case ToolResult:
		p.ToolResult = &x
	case *ToolResult:
		p.ToolResult = x
	case UsageReport:
		p.Usage = &x
	case *UsageReport:
		p.Usage = x
	case json.RawMessage:
		p.Payload = x
	default:
		b, err := json.Marshal(v)
		if err != nil {
			b, _ = json.Marshal(fmt.Sprint(v))
		}
		p.Payload = b
	}
	if want := typedPayload(kind); want != "" {
		ok := map[string]bool{"Message": p.Message != nil, "ToolCall": p.ToolCall != nil,
			"ToolResult": p.ToolResult != nil, "UsageReport": p.Usage != nil}[want]
		if !ok {
			panic(fmt.Sprintf("lux: NewProgress: kind %q takes a lux.%s (or *lux.%s), got %T", kind, want, want, v))
		}
	}
	return p
}

// typedPayload names the type a shared progress kind carries; "" for
// other kinds.
func typedPayload(kind string) string {
	switch kind {
	case KindAgentMessage, KindReasoning:
		return "Message"
	case KindToolCall:
		return "ToolCall"
	case KindToolResult:
		return "ToolResult"
	case KindUsage:
		return "UsageReport"
	}
	return ""
}

// payload returns the value stored as the progress payload.
func (p Progress) payload() any {
	switch {
	case p.Message != nil:
		return p.Message
	case p.ToolCall != nil:
		return p.ToolCall
	case p.ToolResult != nil:
		return p.ToolResult
	case p.Usage != nil:
		return p.Usage
	case p.Payload != nil:
		return p.Payload
	}
	return nil
}

// wireEvent is the flat on-disk form of an Event.
type wireEvent struct {
	Type EventType  `json:"type"`
	TS   *time.Time `json:"ts,omitempty"`
	// ready
	AgentID         string         `json:"agentId,omitempty"`
	AgentVersion    string         `json:"agentVersion,omitempty"`
	AgentVersionRaw string         `json:"agentVersionRaw,omitempty"`
	Model           string         `json:"model,omitempty"`
	Detail          map[string]any `json:"detail,omitempty"`
	// progress, interrupt, responded
	ID   string `json:"id,omitempty"`
	Kind string `json:"kind,omitempty"`
	// interrupt
	Question  string     `json:"question,omitempty"`
	Questions []Question `json:"questions,omitempty"`
	Request   any        `json:"request,omitempty"`
	Context   any        `json:"context,omitempty"`
	Raw       any        `json:"raw,omitempty"`
	// progress payload, custom interrupt payload, custom answer payload
	Payload json.RawMessage `json:"payload,omitempty"`
	// responded
	Text     string            `json:"text,omitempty"`
	Answers  map[string]string `json:"answers,omitempty"`
	Approved *bool             `json:"approved,omitempty"`
	// done and error
	Usage   *TokenUsage `json:"usage,omitempty"`
	CostUSD *float64    `json:"costUsd,omitempty"`
	Turns   int         `json:"turns,omitempty"`
	Summary any         `json:"summary,omitempty"`
	// error, and approve reason
	ExitReason ExitReason `json:"exitReason,omitempty"`
	Reason     string     `json:"reason,omitempty"`
	// lifecycle
	Stage Stage `json:"stage,omitempty"`
}

func marshalAny(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	if r, ok := v.(json.RawMessage); ok {
		return r, nil
	}
	return json.Marshal(v)
}

// MarshalJSON writes the flat on-disk form.
func (e Event) MarshalJSON() ([]byte, error) {
	w := wireEvent{Type: e.Type}
	if !e.Time.IsZero() {
		t := e.Time
		w.TS = &t
	}
	var err error
	switch e.Type {
	case EventReady:
		if e.Ready != nil {
			r := e.Ready
			w.AgentID, w.AgentVersion, w.AgentVersionRaw, w.Model, w.Detail = r.AgentID, r.AgentVersion, r.AgentVersionRaw, r.Model, r.Detail
		}
	case EventProgress:
		if e.Progress != nil {
			w.ID, w.Kind = e.Progress.ID, e.Progress.Kind
			w.Payload, err = marshalAny(e.Progress.payload())
		}
	case EventInterrupt:
		if in := e.Interrupt; in != nil {
			w.ID, w.Kind, w.Question, w.Questions, w.Request, w.Context, w.Raw = in.ID, string(in.Kind), in.Question, in.Questions, in.Request, in.Context, in.Raw
			w.Payload, err = marshalAny(in.Payload)
		}
	case EventResponded:
		if a := e.Answer; a != nil {
			w.ID, w.Kind, w.Text, w.Answers, w.Reason = a.ID, string(a.Kind), a.Text, a.Answers, a.Reason
			if a.Kind == Approve {
				ok := a.Approved
				w.Approved = &ok
			}
			w.Payload, err = marshalAny(a.Payload)
		}
	case EventDone:
		if d := e.Done; d != nil {
			w.Usage, w.CostUSD, w.Turns, w.Summary = d.Usage, d.CostUSD, d.Turns, d.Summary
		}
	case EventError:
		if x := e.Error; x != nil {
			w.ExitReason, w.Reason, w.Usage, w.CostUSD = x.ExitReason, x.Reason, x.Usage, x.CostUSD
		}
	case EventLifecycle:
		w.Stage = e.Stage
	}
	if err != nil {
		return nil, fmt.Errorf("lux: event %s: %w", e.Type, err)
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the flat on-disk form. Unknown fields, and events of
// unknown types (read as their type and time only), are tolerated so that
// old readers keep working on new records; a progress payload that does
// not fit its kind's type is kept raw in Payload.
func (e *Event) UnmarshalJSON(b []byte) error {
	var w wireEvent
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = Event{Type: w.Type}
	if w.TS != nil {
		e.Time = *w.TS
	}
	switch w.Type {
	case EventReady:
		e.Ready = &Ready{AgentID: w.AgentID, AgentVersion: w.AgentVersion, AgentVersionRaw: w.AgentVersionRaw, Model: w.Model, Detail: w.Detail}
	case EventProgress:
		p := Progress{ID: w.ID, Kind: w.Kind}
		decodeProgressPayload(&p, w.Payload)
		e.Progress = &p
	case EventInterrupt:
		e.Interrupt = &Interrupt{Kind: InterruptKind(w.Kind), ID: w.ID, Question: w.Question, Questions: w.Questions,
			Request: w.Request, Context: w.Context, Raw: w.Raw, Payload: rawToAny(w.Payload)}
	case EventResponded:
		a := Answer{Kind: InterruptKind(w.Kind), ID: w.ID, Text: w.Text, Answers: w.Answers, Reason: w.Reason, Payload: rawToAny(w.Payload)}
		if w.Approved != nil {
			a.Approved = *w.Approved
		}
		e.Answer = &a
	case EventDone:
		e.Done = &Done{Usage: w.Usage, CostUSD: w.CostUSD, Turns: w.Turns, Summary: w.Summary}
	case EventError:
		e.Error = &ErrorEvent{ExitReason: w.ExitReason, Reason: w.Reason, Usage: w.Usage, CostUSD: w.CostUSD}
	case EventLifecycle:
		e.Stage = w.Stage
	case "":
		return fmt.Errorf("lux: event has no type")
	default:
		// A type a newer version writes: kept with its time, so that
		// older readers still read newer records.
	}
	return nil
}

func rawToAny(r json.RawMessage) any {
	if len(r) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(r, &v); err != nil {
		return string(r)
	}
	return v
}

// decodeProgressPayload fills the typed field for the shared kinds, or
// keeps the payload raw.
func decodeProgressPayload(p *Progress, raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	var target any
	switch p.Kind {
	case KindAgentMessage, KindReasoning:
		p.Message = &Message{}
		target = p.Message
	case KindToolCall:
		p.ToolCall = &ToolCall{}
		target = p.ToolCall
	case KindToolResult:
		p.ToolResult = &ToolResult{}
		target = p.ToolResult
	case KindUsage:
		p.Usage = &UsageReport{}
		target = p.Usage
	default:
		p.Payload = raw
		return
	}
	if err := json.Unmarshal(raw, target); err != nil {
		p.Message, p.ToolCall, p.ToolResult, p.Usage = nil, nil, nil, nil
		p.Payload = raw
	}
}
