package record_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/record"
)

// eventsFrom turns bytes into a trajectory of tool calls and results over a
// small key space (so keys repeat), with malformed and unrelated events
// mixed in. Every event also goes through its JSON form, as a record
// reader would see it.
func eventsFrom(t *testing.T, b []byte) []lux.Event {
	names := []string{"", "Bash", "Read"}
	ids := []string{"", "1", "2"}
	parents := []string{"", "task"}
	var out []lux.Event
	for i := 0; i+1 < len(b); i += 2 {
		op, k := b[i], b[i+1]
		name, id, parent := names[int(k)%3], ids[int(k/3)%3], parents[int(k/9)%2]
		var e lux.Event
		switch op % 7 {
		case 0, 1:
			e = call(name, id, parent)
		case 2, 3:
			e = result(name, id, parent, k&0x80 != 0)
		case 4:
			e = rawProgress(lux.KindToolCall, `"not a call"`)
		case 5:
			e = rawProgress(lux.KindToolResult, `[1,2]`)
		default:
			e = message("hi")
		}
		if op&0x80 != 0 {
			raw, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			e = lux.Event{}
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, e)
	}
	return out
}

// checkToolInvariants checks what SummarizeTools promises against an
// independent count of the trajectory.
func checkToolInvariants(t *testing.T, events []lux.Event) {
	t.Helper()
	got := record.SummarizeTools(events)
	var wellFormed, badCalls, results, badResults int
	keys := map[[3]string]bool{}
	for _, e := range events {
		if e.Type != lux.EventProgress || e.Progress == nil {
			continue
		}
		switch e.Progress.Kind {
		case lux.KindToolCall:
			c := e.Progress.ToolCall
			if c == nil || c.Name == "" || c.ToolUseID == "" {
				badCalls++
				continue
			}
			wellFormed++
			keys[[3]string{c.ParentToolUseID, c.Name, c.ToolUseID}] = true
		case lux.KindToolResult:
			if e.Progress.ToolResult == nil {
				badResults++
				continue
			}
			results++
		}
	}
	switch {
	case got.Reported < got.Total:
		t.Errorf("Reported %d < Total %d: %+v", got.Reported, got.Total, got)
	case got.Total != got.Succeeded+got.Failed+got.Unresolved:
		t.Errorf("Total %d != Succeeded+Failed+Unresolved: %+v", got.Total, got)
	case got.Reported != wellFormed:
		t.Errorf("Reported = %d, want %d well-formed calls: %+v", got.Reported, wellFormed, got)
	case got.Total != len(keys):
		t.Errorf("Total = %d, want %d distinct keys: %+v", got.Total, len(keys), got)
	case got.Malformed != badCalls+badResults:
		t.Errorf("Malformed = %d, want %d: %+v", got.Malformed, badCalls+badResults, got)
	case got.Succeeded+got.Failed+got.UnmatchedResults != results:
		t.Errorf("each of the %d results must resolve a call or be unmatched: %+v", results, got)
	}
	if n := len(assertion.ToolCalls(events, assertion.AnyAgent)); n != got.Reported {
		t.Errorf("ToolCalls(any) has %d calls, Reported = %d", n, got.Reported)
	}
	if m, s := len(assertion.ToolCalls(events, assertion.MainAgent)), len(assertion.ToolCalls(events, assertion.Subagent)); m+s != got.Reported {
		t.Errorf("main %d + subagent %d calls != Reported %d", m, s, got.Reported)
	}
}

func TestSummarizeToolsInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(80))
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		checkToolInvariants(t, eventsFrom(t, b))
		if t.Failed() {
			t.Fatalf("trajectory from %x", b)
		}
	}
}

func FuzzSummarizeTools(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 4, 2, 4})             // a call and its result
	f.Add([]byte{0, 4, 0, 4, 2, 4, 2, 4}) // a key called twice, two results
	f.Add([]byte{2, 4, 0, 4, 2, 0x84})    // result first, then a call and an error result
	f.Add([]byte{4, 0, 5, 0, 6, 0, 0x80, 13, 0x82, 13})
	f.Fuzz(func(t *testing.T, b []byte) {
		checkToolInvariants(t, eventsFrom(t, b))
	})
}
