package lux

import (
	"encoding/json"
)

// Approval is what an approve interrupt asks, in one shape for every
// built-in driver: the driver sets it as Interrupt.Request and keeps the
// CLI's own request in Interrupt.Raw. An answerer reads it with
// Interrupt.Approval; a rule over the interrupt's text sees its JSON
// (`"tool":"Bash"`, `"command":"rm -rf /"`).
type Approval struct {
	// Action is what kind of thing the agent wants to do, the same for
	// every driver: ActionCommand, ActionEdit, ActionPermissions or
	// ActionTool.
	Action string `json:"action"`
	// Tool is the tool as the agent's tool-call events name it ("Bash",
	// "Write" for Claude Code; "command_execution", "file_change" for
	// Codex).
	Tool string `json:"tool"`
	// Command is the shell command to run (ActionCommand).
	Command string `json:"command,omitempty"`
	// Cwd is the directory the command runs in, when the CLI says.
	Cwd string `json:"cwd,omitempty"`
	// Paths are the files the action touches, as the agent names them.
	Paths []string `json:"paths,omitempty"`
	// Description is why, as the agent or its CLI says.
	Description string `json:"description,omitempty"`
	// Input is the tool's input, as the agent sent it.
	Input any `json:"input,omitempty"`
	// NoDenyReason is true when the agent's CLI cannot carry a denial's
	// reason back to the model (Codex app-server: the model only learns
	// that the user declined). The reason is still recorded with the
	// answer.
	NoDenyReason bool `json:"noDenyReason,omitempty"`
}

// The actions of an Approval.
const (
	ActionCommand     = "command"     // run a shell command
	ActionEdit        = "edit"        // create, change or delete files
	ActionPermissions = "permissions" // widen the agent's permissions (sandbox, network, directories)
	ActionTool        = "tool"        // call any other tool
)

// Question is one question of an ask interrupt. An answer gives each its
// own text in Answer.Answers, keyed by ID.
type Question struct {
	// ID names the question within its interrupt: the CLI's own id
	// (Codex), else "q1", "q2", ... in order (Claude Code's questions have
	// none).
	ID     string `json:"id"`
	Text   string `json:"text"`
	Header string `json:"header,omitempty"`
	// Options are the choices offered, when the question offers some.
	Options     []Option `json:"options,omitempty"`
	MultiSelect bool     `json:"multiSelect,omitempty"`
}

// Option is one choice of a Question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Approval returns the approval an approve interrupt asks for: Request as
// an *Approval or Approval (as a driver sets it), or decoded from its JSON
// (as it reads back from a record). false when the interrupt is not an
// approval or its request has no tool or action.
func (in Interrupt) Approval() (Approval, bool) {
	if in.Kind != Approve {
		return Approval{}, false
	}
	switch r := in.Request.(type) {
	case *Approval:
		if r != nil {
			return *r, true
		}
		return Approval{}, false
	case Approval:
		return r, true
	case nil:
		return Approval{}, false
	}
	b, err := json.Marshal(in.Request)
	if err != nil {
		return Approval{}, false
	}
	var a Approval
	if json.Unmarshal(b, &a) != nil || (a.Tool == "" && a.Action == "") {
		return Approval{}, false
	}
	return a, true
}

// AnswerFor returns the answer to the question with id: its entry in
// Answers, else Text (which answers every question).
func (a Answer) AnswerFor(id string) string {
	if t, ok := a.Answers[id]; ok {
		return t
	}
	return a.Text
}
