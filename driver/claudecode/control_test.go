package claudecode

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
)

func TestAnswers(t *testing.T) {
	askLine := `{"type":"control_request","request_id":"req-1","request":{"subtype":"can_use_tool","tool_name":"AskUserQuestion",` +
		`"input":{"questions":[{"question":"Color?","header":"C","options":[{"label":"Red"}],"multiSelect":false},{"question":"Size?"}]},"tool_use_id":"toolu_q"}}`
	bashLine := `{"type":"control_request","request_id":"req-2","request":{"subtype":"can_use_tool","tool_name":"Bash",` +
		`"input":{"command":"ls"},"description":"list","tool_use_id":"toolu_b"}}`
	tests := []struct {
		name   string
		line   string
		answer lux.Answer
		want   string // the control response, as JSON
	}{
		{
			name:   "ask answers every question",
			line:   askLine,
			answer: lux.Answer{Kind: lux.Ask, ID: "toolu_q", Text: "Red"},
			want: `{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"behavior":"allow",` +
				`"updatedInput":{"questions":[{"question":"Color?","header":"C","options":[{"label":"Red"}],"multiSelect":false},{"question":"Size?"}],` +
				`"answers":{"Color?":"Red","Size?":"Red"}}}}}`,
		},
		{
			name:   "ask answers by question",
			line:   askLine,
			answer: lux.Answer{Kind: lux.Ask, ID: "toolu_q", Text: `{"Color?": "Red", "Size?": "Large"}`},
			want: `{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"behavior":"allow",` +
				`"updatedInput":{"questions":[{"question":"Color?","header":"C","options":[{"label":"Red"}],"multiSelect":false},{"question":"Size?"}],` +
				`"answers":{"Color?":"Red","Size?":"Large"}}}}}`,
		},
		{
			name:   "ask answers by question id, the rest by the text",
			line:   askLine,
			answer: lux.Answer{Kind: lux.Ask, ID: "toolu_q", Text: "Medium", Answers: map[string]string{"q1": "Red"}},
			want: `{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"behavior":"allow",` +
				`"updatedInput":{"questions":[{"question":"Color?","header":"C","options":[{"label":"Red"}],"multiSelect":false},{"question":"Size?"}],` +
				`"answers":{"Color?":"Red","Size?":"Medium"}}}}}`,
		},
		{
			name:   "ask answers from a JSON object keyed by id, as Codex's",
			line:   askLine,
			answer: lux.Answer{Kind: lux.Ask, ID: "toolu_q", Text: `{"q1": "Red", "q2": "Large"}`},
			want: `{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"behavior":"allow",` +
				`"updatedInput":{"questions":[{"question":"Color?","header":"C","options":[{"label":"Red"}],"multiSelect":false},{"question":"Size?"}],` +
				`"answers":{"Color?":"Red","Size?":"Large"}}}}}`,
		},
		{
			name:   "approved",
			line:   bashLine,
			answer: lux.Answer{Kind: lux.Approve, ID: "toolu_b", Approved: true},
			want:   `{"type":"control_response","response":{"subtype":"success","request_id":"req-2","response":{"behavior":"allow","updatedInput":{"command":"ls"}}}}`,
		},
		{
			name:   "denied without a reason",
			line:   bashLine,
			answer: lux.Answer{Kind: lux.Approve, ID: "toolu_b"},
			want:   `{"type":"control_response","response":{"subtype":"success","request_id":"req-2","response":{"behavior":"deny","message":"The user denied this action."}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newParser()
			out := p.Line([]byte(tt.line))
			require.Len(t, out.Events, 1)
			require.Equal(t, lux.EventInterrupt, out.Events[0].Type)
			require.NoError(t, tt.answer.Matches(*out.Events[0].Interrupt))
			got, err := p.Answer(tt.answer)
			require.NoError(t, err)
			var gotV, wantV any
			require.NoError(t, json.Unmarshal(got, &gotV))
			require.NoError(t, json.Unmarshal([]byte(tt.want), &wantV))
			if diff := cmp.Diff(wantV, gotV); diff != "" {
				t.Errorf("control response (-want +got):\n%s", diff)
			}
			// A second answer to the same interrupt writes nothing.
			again, err := p.Answer(tt.answer)
			require.NoError(t, err)
			assert.Nil(t, again)
		})
	}
}

func TestInterrupts(t *testing.T) {
	p := newParser()
	ask := p.Line([]byte(`{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"AskUserQuestion",` +
		`"input":{"questions":[{"question":"A?"},{"question":"B?"}]},"tool_use_id":"toolu_1"}}`)).Events[0].Interrupt
	assert.Equal(t, lux.Interrupt{Kind: lux.Ask, ID: "toolu_1", Question: "A?\nB?",
		Questions: []lux.Question{{ID: "q1", Text: "A?"}, {ID: "q2", Text: "B?"}},
		Context:   map[string]any{"toolUseId": "toolu_1", "toolName": "AskUserQuestion"},
		Raw: map[string]any{"tool_name": "AskUserQuestion", "tool_use_id": "toolu_1", "input": map[string]any{
			"questions": []any{map[string]any{"question": "A?"}, map[string]any{"question": "B?"}},
		}},
	}, *ask)

	// The same tool use asked twice gets a fresh id.
	again := p.Line([]byte(`{"type":"control_request","request_id":"r2","request":{"subtype":"can_use_tool","tool_name":"Write",` +
		`"input":{"file_path":"a"},"tool_use_id":"toolu_1"}}`)).Events[0].Interrupt
	assert.Equal(t, "toolu_1-2", again.ID)
	assert.Equal(t, lux.Approve, again.Kind)
	assert.Equal(t, &lux.Approval{Action: lux.ActionEdit, Tool: "Write", Paths: []string{"a"}, Input: map[string]any{"file_path": "a"}}, again.Request)

	_, err := p.Answer(lux.Answer{Kind: lux.Ask, ID: "toolu_1-2", Text: "x"})
	assert.ErrorIs(t, err, lux.ErrAnswerMismatch)
	_, err = p.Answer(lux.Answer{Kind: lux.Ask, ID: "nope"})
	assert.Error(t, err)

	// A request the CLI withdraws is dropped.
	p.Line([]byte(`{"type":"control_cancel_request","request_id":"r1"}`))
	b, err := p.Answer(lux.Answer{Kind: lux.Ask, ID: "toolu_1", Text: "x"})
	require.NoError(t, err)
	assert.Nil(t, b)

	// A request the driver cannot answer is refused at once.
	out := p.Line([]byte(`{"type":"control_request","request_id":"r3","request":{"subtype":"hook_callback","callback_id":"x"}}`))
	require.Len(t, out.Replies, 1)
	assert.JSONEq(t, `{"type":"control_response","response":{"subtype":"error","request_id":"r3","error":"lux: control request \"hook_callback\" is not supported"}}`, string(out.Replies[0]))
	require.Len(t, out.Events, 1)
	assert.Equal(t, KindControl, out.Events[0].Progress.Kind)
}

func TestLines(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []string // the events, as JSON
	}{
		{
			name:  "not JSON",
			lines: []string{"Warning: something", "", "  "},
			want:  []string{`{"type":"progress","id":"out-1","kind":"stdout-text","payload":{"text":"Warning: something"}}`},
		},
		{
			name:  "unknown type kept raw",
			lines: []string{`{"type":"rate_limit_event","x":1}`},
			want:  []string{`{"type":"progress","id":"evt-1","kind":"claude-event","payload":{"type":"rate_limit_event","x":1}}`},
		},
		{
			name: "usage without stream events is reported when the next response starts",
			lines: []string{
				`{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":10,"output_tokens":1}}}`,
				`{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}],"usage":{"input_tokens":10,"output_tokens":7}}}`,
				`{"type":"assistant","message":{"id":"m2","model":"x","content":[{"type":"text","text":"b"}],"usage":{"input_tokens":20,"output_tokens":3}}}`,
			},
			want: []string{
				`{"type":"progress","id":"msg-1","kind":"agent-message","payload":{"text":"a"}}`,
				`{"type":"progress","id":"tc-t1","kind":"tool-call","payload":{"name":"Bash","input":{},"toolUseId":"t1"}}`,
				`{"type":"progress","id":"usage-m1","kind":"usage","payload":{"input":10,"output":7,"cacheRead":0,"cacheCreation":0,"label":"x"}}`,
				`{"type":"progress","id":"msg-2","kind":"agent-message","payload":{"text":"b"}}`,
			},
		},
		{
			name: "a response reported once",
			lines: []string{
				`{"type":"stream_event","event":{"type":"message_start","message":{"id":"m1","model":"x","usage":{"input_tokens":5,"output_tokens":1}}},"api_message_id":"m1"}`,
				`{"type":"stream_event","event":{"type":"message_delta","usage":{"output_tokens":9}},"api_message_id":"m1"}`,
				`{"type":"stream_event","event":{"type":"message_stop"},"api_message_id":"m1"}`,
				`{"type":"assistant","message":{"id":"m1","model":"x","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}`,
				`{"type":"stream_event","event":{"type":"message_stop"},"api_message_id":"m1"}`,
			},
			want: []string{
				`{"type":"progress","id":"usage-m1","kind":"usage","payload":{"input":5,"output":9,"cacheRead":0,"cacheCreation":0,"label":"x"}}`,
			},
		},
		{
			name: "subagent text and unknown tool results",
			lines: []string{
				`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Explore the repo"}]},"parent_tool_use_id":"toolu_task"}`,
				`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":[{"type":"text","text":"x"},{"type":"text","text":"y"}],"is_error":true}]}}`,
			},
			want: []string{
				`{"type":"progress","id":"user-1","kind":"user-message","payload":{"text":"Explore the repo","parentToolUseId":"toolu_task"}}`,
				`{"type":"progress","id":"tr-t9","kind":"tool-result","payload":{"name":"unknown","toolUseId":"t9","content":[{"text":"x","type":"text"},{"text":"y","type":"text"}],"isError":true,"text":"x\ny"}}`,
			},
		},
		{
			name: "error result without a message",
			lines: []string{
				`{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":2,"terminal_reason":"max_turns"}`,
				`{"type":"assistant","message":{"id":"late","content":[{"type":"text","text":"ignored"}]}}`,
			},
			want: []string{
				`{"type":"progress","id":"result","kind":"result","payload":{"subtype":"error_max_turns","isError":true,"terminalReason":"max_turns","numTurns":2}}`,
				`{"type":"error","exitReason":"error","reason":"claude reported an error (error_max_turns, max_turns)"}`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newParser()
			var got []string
			for _, l := range tt.lines {
				for _, e := range p.Line([]byte(l)).Events {
					b, err := json.Marshal(e)
					require.NoError(t, err)
					got = append(got, string(b))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}
