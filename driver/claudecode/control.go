package claudecode

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/luxeval/lux"
)

// DefaultAskTool is the tool through which Claude Code asks the user
// questions.
const DefaultAskTool = "AskUserQuestion"

// The CLI asks the harness over the stdio control protocol (enabled by
// --input-format stream-json --permission-prompt-tool stdio): a
// control_request line on stdout with subtype can_use_tool, answered by a
// control_response line on stdin with the same request_id. For the ask
// tool the answer goes back as updatedInput.answers (question text →
// answer); for any other tool the reply allows the call with its input
// unchanged, or denies it with a message the model sees.

// pendingRequest is a control request waiting for its answer.
type pendingRequest struct {
	requestID string
	kind      lux.InterruptKind
	input     json.RawMessage
	questions []string
}

// interrupts keeps the control requests that became interrupts, by
// interrupt id.
type interrupts struct {
	askTool string
	pending map[string]pendingRequest
	used    map[string]bool
}

func newInterrupts(askTool string) *interrupts {
	return &interrupts{askTool: askTool, pending: map[string]pendingRequest{}, used: map[string]bool{}}
}

// askQuestion is one question of the ask tool's input.
type askQuestion struct {
	Question string `json:"question"`
}

// open turns a can_use_tool request into an interrupt. The interrupt id
// is the tool call's id (which the model chose, so it is stable across
// runs of a scripted model), made unique within the run.
func (s *interrupts) open(requestID string, r controlRequest) lux.Interrupt {
	id := r.ToolUseID
	if id == "" {
		id = requestID
	}
	if id == "" {
		id = "request"
	}
	base := id
	for n := 2; s.used[id]; n++ {
		id = fmt.Sprintf("%s-%d", base, n)
	}
	s.used[id] = true

	input := r.Input
	if len(strings.TrimSpace(string(input))) == 0 || strings.TrimSpace(string(input)) == "null" {
		input = json.RawMessage(`{}`)
	}
	var in lux.Interrupt
	if r.ToolName == s.askTool {
		var q struct {
			Questions []askQuestion `json:"questions"`
		}
		_ = json.Unmarshal(input, &q)
		var texts []string
		for _, x := range q.Questions {
			if strings.TrimSpace(x.Question) != "" {
				texts = append(texts, x.Question)
			}
		}
		question := strings.Join(texts, "\n")
		if question == "" {
			question = strings.TrimSpace(string(input))
		}
		var raw struct {
			Questions any `json:"questions"`
		}
		_ = json.Unmarshal(input, &raw)
		ctx := map[string]any{"toolUseId": r.ToolUseID, "toolName": r.ToolName}
		if raw.Questions != nil {
			ctx["questions"] = raw.Questions
		}
		in = lux.Interrupt{Kind: lux.Ask, ID: id, Question: question, Context: ctx}
		s.pending[id] = pendingRequest{requestID: requestID, kind: lux.Ask, input: input, questions: texts}
		return in
	}
	req := map[string]any{"tool": r.ToolName, "input": decodeAny(input)}
	if r.Description != "" {
		req["description"] = r.Description
	}
	if r.BlockedPath != "" {
		req["blockedPath"] = r.BlockedPath
	}
	ctx := map[string]any{"toolUseId": r.ToolUseID}
	if r.DecisionReason != "" {
		ctx["decisionReason"] = r.DecisionReason
	}
	if s := decodeAny(nonEmptyList(r.PermissionSuggestions)); s != nil {
		ctx["permissionSuggestions"] = s
	}
	in = lux.Interrupt{Kind: lux.Approve, ID: id, Request: req, Context: ctx}
	s.pending[id] = pendingRequest{requestID: requestID, kind: lux.Approve, input: input}
	return in
}

// cancel forgets the request the CLI withdrew; its answer is then dropped.
func (s *interrupts) cancel(requestID string) {
	for id, p := range s.pending {
		if p.requestID == requestID {
			delete(s.pending, id)
		}
	}
}

// answer returns the control_response line that delivers a to the CLI,
// without its newline. It returns nil, nil when the request was withdrawn
// by the CLI in the meantime.
func (s *interrupts) answer(a lux.Answer) ([]byte, error) {
	p, ok := s.pending[a.ID]
	if !ok {
		if s.used[a.ID] {
			return nil, nil // answered already, or withdrawn
		}
		return nil, fmt.Errorf("claudecode: no pending request for interrupt %q", a.ID)
	}
	if a.Kind != p.kind {
		return nil, fmt.Errorf("%w: interrupt %q is %s, answered with %s", lux.ErrAnswerMismatch, a.ID, p.kind, a.Kind)
	}
	delete(s.pending, a.ID)
	var resp map[string]any
	switch p.kind {
	case lux.Ask:
		var input map[string]any
		if err := json.Unmarshal(p.input, &input); err != nil || input == nil {
			input = map[string]any{}
		}
		input["answers"] = askAnswers(p.questions, a.Text)
		resp = map[string]any{"behavior": "allow", "updatedInput": input}
	default:
		if a.Approved {
			resp = map[string]any{"behavior": "allow", "updatedInput": json.RawMessage(p.input)}
			break
		}
		msg := strings.TrimSpace(a.Reason)
		if msg == "" {
			msg = "The user denied this action."
		}
		resp = map[string]any{"behavior": "deny", "message": msg}
	}
	return json.Marshal(map[string]any{
		"type": "control_response",
		"response": map[string]any{
			"subtype":    "success",
			"request_id": p.requestID,
			"response":   resp,
		},
	})
}

// askAnswers maps each question to the answer text. An answer that is a
// JSON object of strings is taken as the answers by question.
func askAnswers(questions []string, text string) map[string]string {
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") {
		var byQuestion map[string]string
		if json.Unmarshal([]byte(t), &byQuestion) == nil && len(byQuestion) > 0 {
			return byQuestion
		}
	}
	out := make(map[string]string, len(questions))
	for _, q := range questions {
		out[q] = text
	}
	return out
}

// refusal is the control_response line that refuses a request the driver
// cannot answer.
func refusal(requestID, msg string) []byte {
	b, _ := json.Marshal(map[string]any{
		"type": "control_response",
		"response": map[string]any{
			"subtype":    "error",
			"request_id": requestID,
			"error":      msg,
		},
	})
	return b
}

// userMessage is the stream-json input line that gives the CLI the prompt.
func userMessage(text string) []byte {
	b, _ := json.Marshal(map[string]any{
		"type":               "user",
		"message":            map[string]any{"role": "user", "content": []map[string]string{{"type": "text", "text": text}}},
		"parent_tool_use_id": nil,
		"session_id":         "",
	})
	return b
}
