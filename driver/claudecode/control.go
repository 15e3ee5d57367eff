package claudecode

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
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
	questions []lux.Question
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
	Question    string       `json:"question"`
	Header      string       `json:"header"`
	Options     []lux.Option `json:"options"`
	MultiSelect bool         `json:"multiSelect"`
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
	raw := map[string]any{"tool_name": r.ToolName, "input": decodeAny(input)}
	for k, v := range map[string]string{"tool_use_id": r.ToolUseID, "description": r.Description,
		"blocked_path": r.BlockedPath, "decision_reason": r.DecisionReason, "display_name": r.DisplayName} {
		if v != "" {
			raw[k] = v
		}
	}
	if ps := decodeAny(nonEmptyList(r.PermissionSuggestions)); ps != nil {
		raw["permission_suggestions"] = ps
	}
	ctx := map[string]any{"toolUseId": r.ToolUseID, "toolName": r.ToolName}
	if r.ToolName == s.askTool {
		qs := askQuestions(input)
		texts := make([]string, 0, len(qs))
		for _, q := range qs {
			texts = append(texts, q.Text)
		}
		question := strings.Join(texts, "\n")
		if question == "" {
			question = strings.TrimSpace(string(input))
		}
		s.pending[id] = pendingRequest{requestID: requestID, kind: lux.Ask, input: input, questions: qs}
		return lux.Interrupt{Kind: lux.Ask, ID: id, Question: question, Questions: qs, Context: ctx, Raw: raw}
	}
	if r.DecisionReason != "" {
		ctx["decisionReason"] = r.DecisionReason
	}
	s.pending[id] = pendingRequest{requestID: requestID, kind: lux.Approve, input: input}
	return lux.Interrupt{Kind: lux.Approve, ID: id, Request: approval(r, input), Context: ctx, Raw: raw}
}

// askQuestions are the questions of the ask tool's input, numbered q1,
// q2, ... (the tool gives them no ids); questions without text are left
// out.
func askQuestions(input json.RawMessage) []lux.Question {
	var q struct {
		Questions []askQuestion `json:"questions"`
	}
	_ = json.Unmarshal(input, &q)
	var out []lux.Question
	for _, x := range q.Questions {
		if strings.TrimSpace(x.Question) == "" {
			continue
		}
		out = append(out, lux.Question{Text: x.Question, Header: x.Header, Options: x.Options, MultiSelect: x.MultiSelect})
	}
	driver.QuestionIDs(out)
	return out
}

// Claude Code's tools by the action an approval of them allows.
var (
	commandTools = []string{"Bash", "PowerShell"}
	editTools    = []string{"Write", "Edit", "MultiEdit", "NotebookEdit"}
)

// approval is a permission request in the shape every driver shares.
func approval(r controlRequest, input json.RawMessage) *lux.Approval {
	var in struct {
		Command      string `json:"command"`
		Description  string `json:"description"`
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Path         string `json:"path"`
	}
	_ = json.Unmarshal(input, &in)
	a := &lux.Approval{Action: lux.ActionTool, Tool: r.ToolName, Input: decodeAny(input), Description: r.Description}
	switch {
	case slices.Contains(commandTools, r.ToolName):
		a.Action, a.Command = lux.ActionCommand, in.Command
	case slices.Contains(editTools, r.ToolName):
		a.Action = lux.ActionEdit
	}
	if a.Description == "" {
		a.Description = in.Description
	}
	for _, p := range []string{in.FilePath, in.NotebookPath, in.Path, r.BlockedPath} {
		if p != "" && !slices.Contains(a.Paths, p) {
			a.Paths = append(a.Paths, p)
		}
	}
	return a
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
		input["answers"] = askAnswers(p.questions, a)
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

// askAnswers maps each question's text (the key the CLI reads) to its
// answer: a.Answers by question id, else a.Text. An answer text that is a
// JSON object of strings, keyed by question id or text, is taken as the
// answers by question, as the Codex driver takes it.
func askAnswers(questions []lux.Question, a lux.Answer) map[string]string {
	if len(a.Answers) == 0 {
		if t := strings.TrimSpace(a.Text); strings.HasPrefix(t, "{") {
			var byKey map[string]string
			if json.Unmarshal([]byte(t), &byKey) == nil && len(byKey) > 0 {
				a.Answers = byKey
			}
		}
	}
	out := make(map[string]string, len(questions))
	for _, q := range questions {
		text, ok := a.Answers[q.ID]
		if !ok {
			if text, ok = a.Answers[q.Text]; !ok {
				text = a.Text
			}
		}
		out[q.Text] = text
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
