package record

import "github.com/luxeval/lux"

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
func SummarizeTools(events []lux.Event) ToolOutcomes {
	var out ToolOutcomes
	pending := map[toolKey]*pendingCall{}
	var order []toolKey
	for _, e := range events {
		if c, ok := e.AsToolCall(); ok {
			if !c.WellFormed() {
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
		r, ok := e.AsToolResult()
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
