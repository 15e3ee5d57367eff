package assertion

import "github.com/luxeval/lux"

// The trajectory helpers give a predicate the events of a run in usable
// form.

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
// decoded, or lacks a name or a tool use id is left out (record.SummarizeTools
// counts it as malformed).
func ToolCalls(events []lux.Event, by CallScope) []lux.ToolCall {
	var out []lux.ToolCall
	for _, e := range events {
		c, ok := e.AsToolCall()
		if ok && c.WellFormed() && by.Includes(c.ParentToolUseID) {
			out = append(out, *c)
		}
	}
	return out
}

// ToolResults returns the tool results of the trajectory, in order; results
// whose payload is missing or could not be decoded are left out.
func ToolResults(events []lux.Event) []lux.ToolResult {
	var out []lux.ToolResult
	for _, e := range events {
		if r, ok := e.AsToolResult(); ok && r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// AgentMessages returns the text of every agent-message progress event, in
// order (answers given to interrupts are not agent messages). The last one
// is the agent's final message.
func AgentMessages(events []lux.Event) []string {
	var out []string
	for _, e := range events {
		if e.Type == lux.EventProgress && e.Progress != nil && e.Progress.Kind == lux.KindAgentMessage && e.Progress.Message != nil {
			out = append(out, e.Progress.Message.Text)
		}
	}
	return out
}

// Interrupts returns the interrupts of the trajectory, in order.
func Interrupts(events []lux.Event) []lux.Interrupt {
	var out []lux.Interrupt
	for _, e := range events {
		if e.Type == lux.EventInterrupt && e.Interrupt != nil {
			out = append(out, *e.Interrupt)
		}
	}
	return out
}
