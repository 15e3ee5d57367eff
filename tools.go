package lux

// CallScope says which agent's tool calls count: the main agent's, a
// subagent's, or either. A call made by a subagent carries the id of the
// tool use that started the subagent (ParentToolUseID).
type CallScope string

// The scopes of tool calls.
const (
	AnyAgent  CallScope = "any"      // every call
	MainAgent CallScope = "main"     // calls without a ParentToolUseID
	Subagent  CallScope = "subagent" // calls with a ParentToolUseID
)

// Includes reports whether a call with the given parent tool use id is in
// scope s. The zero scope includes every call, like AnyAgent.
func (s CallScope) Includes(parentToolUseID string) bool {
	switch s {
	case MainAgent:
		return parentToolUseID == ""
	case Subagent:
		return parentToolUseID != ""
	default:
		return true
	}
}

// Valid reports whether s is one of the scopes above (or zero).
func (s CallScope) Valid() bool {
	return s == "" || s == AnyAgent || s == MainAgent || s == Subagent
}

// ToolCalls returns the well-formed tool calls of the trajectory in scope by,
// in order. A tool-call progress event whose payload is missing, could not be
// decoded, or lacks a name or a tool use id is left out (SummarizeTools
// counts it as malformed).
func ToolCalls(events []Event, by CallScope) []ToolCall {
	var out []ToolCall
	for _, e := range events {
		c, ok := toolCallOf(e)
		if ok && wellFormedCall(c) && by.Includes(c.ParentToolUseID) {
			out = append(out, *c)
		}
	}
	return out
}

// ToolResults returns the tool results of the trajectory, in order; results
// whose payload is missing or could not be decoded are left out.
func ToolResults(events []Event) []ToolResult {
	var out []ToolResult
	for _, e := range events {
		if r, ok := toolResultOf(e); ok && r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// AgentMessages returns the text of every agent-message progress event, in
// order (answers given to interrupts are not agent messages). The last one
// is the agent's final message.
func AgentMessages(events []Event) []string {
	var out []string
	for _, e := range events {
		if e.Type == EventProgress && e.Progress != nil && e.Progress.Kind == KindAgentMessage && e.Progress.Message != nil {
			out = append(out, e.Progress.Message.Text)
		}
	}
	return out
}

// Interrupts returns the interrupts of the trajectory, in order.
func Interrupts(events []Event) []Interrupt {
	var out []Interrupt
	for _, e := range events {
		if e.Type == EventInterrupt && e.Interrupt != nil {
			out = append(out, *e.Interrupt)
		}
	}
	return out
}

// toolCallOf returns the call of a tool-call progress event; ok is false for
// any other event, and the call is nil when the payload did not decode.
func toolCallOf(e Event) (c *ToolCall, ok bool) {
	if e.Type != EventProgress || e.Progress == nil || e.Progress.Kind != KindToolCall {
		return nil, false
	}
	return e.Progress.ToolCall, true
}

// toolResultOf is toolCallOf for tool-result events.
func toolResultOf(e Event) (r *ToolResult, ok bool) {
	if e.Type != EventProgress || e.Progress == nil || e.Progress.Kind != KindToolResult {
		return nil, false
	}
	return e.Progress.ToolResult, true
}

func wellFormedCall(c *ToolCall) bool { return c != nil && c.Name != "" && c.ToolUseID != "" }

// toolKey identifies a tool call for correlation with its result.
type toolKey struct{ parent, name, id string }

// pendingCall is the correlation state of one key.
type pendingCall struct {
	extra    int  // duplicate calls whose results are still expected
	resolved bool // a result was seen
	failed   bool // the result was an error
}

// SummarizeTools correlates tool calls with their results and counts the
// outcomes. A call and a result correlate when they share the key
// (ParentToolUseID, Name, ToolUseID).
//
//   - Every well-formed tool-call event counts in Reported; each distinct key
//     is one call in Total, and Total = Succeeded + Failed + Unresolved.
//   - A key called more than once is ambiguous: which call a result belongs
//     to cannot be told. Its first results (one per duplicate call) count as
//     unmatched, and the last one decides the key's outcome.
//   - A result for a key that was never called, or for a key already
//     resolved, counts in UnmatchedResults.
//   - A tool-call or tool-result event whose payload is missing or could not
//     be decoded, or a call without a name or tool use id, counts in
//     Malformed and nowhere else.
func SummarizeTools(events []Event) ToolOutcomes {
	var out ToolOutcomes
	pending := map[toolKey]*pendingCall{}
	var order []toolKey
	for _, e := range events {
		if c, ok := toolCallOf(e); ok {
			if !wellFormedCall(c) {
				out.Malformed++
				continue
			}
			out.Reported++
			k := toolKey{c.ParentToolUseID, c.Name, c.ToolUseID}
			if p, seen := pending[k]; seen {
				p.extra++
				continue
			}
			pending[k] = &pendingCall{}
			order = append(order, k)
			continue
		}
		r, ok := toolResultOf(e)
		if !ok {
			continue
		}
		if r == nil {
			out.Malformed++
			continue
		}
		p := pending[toolKey{r.ParentToolUseID, r.Name, r.ToolUseID}]
		switch {
		case p == nil || p.resolved:
			out.UnmatchedResults++
		case p.extra > 0:
			p.extra--
			out.UnmatchedResults++
		default:
			p.resolved, p.failed = true, r.IsError
		}
	}
	out.Total = len(order)
	for _, k := range order {
		switch p := pending[k]; {
		case !p.resolved:
			out.Unresolved++
		case p.failed:
			out.Failed++
		default:
			out.Succeeded++
		}
	}
	return out
}

// ToolOutcomes summarises tool calls correlated with their results.
// Reported >= Total and Total = Succeeded + Failed + Unresolved.
type ToolOutcomes struct {
	Reported         int `json:"reported"`   // tool-call events
	Total            int `json:"total"`      // distinct calls
	Succeeded        int `json:"succeeded"`  // with a non-error result
	Failed           int `json:"failed"`     // with an error result
	Unresolved       int `json:"unresolved"` // no result seen
	UnmatchedResults int `json:"unmatchedResults"`
	Malformed        int `json:"malformed"`
}
