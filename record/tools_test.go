package record_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/record"
)

func call(name, id, parent string) lux.Event {
	p := lux.NewProgress("tc-"+id, lux.KindToolCall, &lux.ToolCall{Name: name, ToolUseID: id, ParentToolUseID: parent, Input: map[string]any{}})
	return lux.Event{Type: lux.EventProgress, Progress: &p}
}

func result(name, id, parent string, isErr bool) lux.Event {
	p := lux.NewProgress("tr-"+id, lux.KindToolResult, &lux.ToolResult{Name: name, ToolUseID: id, ParentToolUseID: parent, IsError: isErr})
	return lux.Event{Type: lux.EventProgress, Progress: &p}
}

func rawProgress(kind, payload string) lux.Event {
	p := lux.Progress{ID: "x", Kind: kind, Payload: json.RawMessage(payload)}
	return lux.Event{Type: lux.EventProgress, Progress: &p}
}

func message(text string) lux.Event {
	p := lux.NewProgress("m", lux.KindAgentMessage, &lux.Message{Text: text})
	return lux.Event{Type: lux.EventProgress, Progress: &p}
}

func TestSummarizeTools(t *testing.T) {
	tests := []struct {
		name   string
		events []lux.Event
		want   record.ToolOutcomes
	}{
		{name: "empty", want: record.ToolOutcomes{}},
		{
			name:   "success failure unresolved",
			events: []lux.Event{call("Read", "1", ""), call("Bash", "2", ""), call("Edit", "3", ""), result("Read", "1", "", false), result("Bash", "2", "", true)},
			want:   record.ToolOutcomes{Reported: 3, Total: 3, Succeeded: 1, Failed: 1, Unresolved: 1},
		},
		{
			name:   "result before its call is unmatched",
			events: []lux.Event{result("Read", "1", "", false), call("Read", "1", "")},
			want:   record.ToolOutcomes{Reported: 1, Total: 1, Unresolved: 1, UnmatchedResults: 1},
		},
		{
			name:   "key includes the name",
			events: []lux.Event{call("Read", "1", ""), result("Write", "1", "", false)},
			want:   record.ToolOutcomes{Reported: 1, Total: 1, Unresolved: 1, UnmatchedResults: 1},
		},
		{
			name:   "key includes the parent",
			events: []lux.Event{call("Read", "1", "task-1"), result("Read", "1", "", false), result("Read", "1", "task-1", false)},
			want:   record.ToolOutcomes{Reported: 1, Total: 1, Succeeded: 1, UnmatchedResults: 1},
		},
		{
			name:   "second result for a resolved key is unmatched",
			events: []lux.Event{call("Read", "1", ""), result("Read", "1", "", false), result("Read", "1", "", true)},
			want:   record.ToolOutcomes{Reported: 1, Total: 1, Succeeded: 1, UnmatchedResults: 1},
		},
		{
			name:   "duplicate call is ambiguous: one result stays unmatched",
			events: []lux.Event{call("Read", "1", ""), call("Read", "1", ""), result("Read", "1", "", false)},
			want:   record.ToolOutcomes{Reported: 2, Total: 1, Unresolved: 1, UnmatchedResults: 1},
		},
		{
			name:   "duplicate call: the last result decides",
			events: []lux.Event{call("Read", "1", ""), call("Read", "1", ""), result("Read", "1", "", false), result("Read", "1", "", true)},
			want:   record.ToolOutcomes{Reported: 2, Total: 1, Failed: 1, UnmatchedResults: 1},
		},
		{
			name: "malformed payloads",
			events: []lux.Event{
				rawProgress(lux.KindToolCall, `"not an object"`),
				rawProgress(lux.KindToolResult, `[1]`),
				{Type: lux.EventProgress, Progress: &lux.Progress{Kind: lux.KindToolCall}},
				call("", "1", ""),
				call("Read", "", ""),
				call("Read", "2", ""),
			},
			want: record.ToolOutcomes{Reported: 1, Total: 1, Unresolved: 1, Malformed: 5},
		},
		{
			name:   "other events are ignored",
			events: []lux.Event{message("hi"), {Type: lux.EventDone, Done: &lux.Done{}}, rawProgress("usage", `{}`)},
			want:   record.ToolOutcomes{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := record.SummarizeTools(tt.events)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SummarizeTools (-want +got):\n%s", diff)
			}
			if got.Reported < got.Total || got.Total != got.Succeeded+got.Failed+got.Unresolved {
				t.Errorf("invariants broken: %+v", got)
			}
		})
	}
}

func TestSummarizeToolsAfterRoundTrip(t *testing.T) {
	events := []lux.Event{call("Read", "1", ""), result("Read", "1", "", true), rawProgress(lux.KindToolCall, `"x"`)}
	var decoded []lux.Event
	for _, e := range events {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var d lux.Event
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		decoded = append(decoded, d)
	}
	want := record.ToolOutcomes{Reported: 1, Total: 1, Failed: 1, Malformed: 1}
	if diff := cmp.Diff(want, record.SummarizeTools(decoded)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestToolCallsScope(t *testing.T) {
	events := []lux.Event{call("Read", "1", ""), call("Task", "2", ""), call("Grep", "3", "2"), call("", "4", ""), message("done")}
	names := func(cs []lux.ToolCall) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	tests := []struct {
		by   assertion.CallScope
		want []string
	}{
		{assertion.AnyAgent, []string{"Read", "Task", "Grep"}},
		{"", []string{"Read", "Task", "Grep"}},
		{assertion.MainAgent, []string{"Read", "Task"}},
		{assertion.Subagent, []string{"Grep"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("by=%q", tt.by), func(t *testing.T) {
			if diff := cmp.Diff(tt.want, names(assertion.ToolCalls(events, tt.by))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if assertion.CallScope("both").Valid() || !assertion.Subagent.Valid() {
		t.Error("Valid is wrong")
	}
}

func TestAgentMessagesAndInterrupts(t *testing.T) {
	events := []lux.Event{
		message("first"),
		{Type: lux.EventInterrupt, Interrupt: &lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "which?"}},
		{Type: lux.EventResponded, Answer: &lux.Answer{Kind: lux.Ask, ID: "q1", Text: "that one"}},
		rawProgress(lux.KindReasoning, `{"text":"thinking"}`),
		message("last"),
		result("Read", "1", "", false),
	}
	if diff := cmp.Diff([]string{"first", "last"}, assertion.AgentMessages(events)); diff != "" {
		t.Errorf("AgentMessages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]lux.Interrupt{{Kind: lux.Ask, ID: "q1", Question: "which?"}}, assertion.Interrupts(events)); diff != "" {
		t.Errorf("Interrupts (-want +got):\n%s", diff)
	}
	if got := assertion.ToolResults(events); len(got) != 1 || got[0].Name != "Read" {
		t.Errorf("ToolResults = %+v", got)
	}
}
