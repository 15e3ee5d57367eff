package codex

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

// serverRequest is a request from the server awaiting the user's answer.
type serverRequest struct {
	rpcID  json.RawMessage
	method string
	kind   lux.InterruptKind
	params json.RawMessage
}

// Methods of the server's requests the driver answers through the run's
// answerer.
const (
	methodUserInput       = "item/tool/requestUserInput"
	methodCommandApproval = "item/commandExecution/requestApproval"
	methodFileApproval    = "item/fileChange/requestApproval"
	methodPermissions     = "item/permissions/requestApproval"
	methodElicitation     = "mcpServer/elicitation/request"
	methodDynamicTool     = "item/tool/call"
	methodLegacyExec      = "execCommandApproval"
	methodLegacyPatch     = "applyPatchApproval"
)

// request turns a server request into an interrupt; a request the driver
// cannot answer gets a JSON-RPC error at once.
func (p *appProtocol) request(m rpcMessage) ([]lux.Event, [][]byte) {
	in, ok := p.interrupt(m)
	if !ok {
		reply := mustJSON(rpcMessage{ID: m.ID, Error: &rpcError{Code: rpcMethodNotFound, Message: "unsupported server request: " + m.Method}})
		return []lux.Event{p.progress(KindCodexError, map[string]any{"message": "declined unsupported request " + m.Method})}, [][]byte{reply}
	}
	p.asked++
	if p.opts.MaxInterrupts > 0 && p.asked > p.opts.MaxInterrupts {
		p.terminal = true
		reply := mustJSON(rpcMessage{ID: m.ID, Error: &rpcError{Code: rpcLimitExceeded, Message: "interaction limit exceeded"}})
		return []lux.Event{{Type: lux.EventError, Error: &lux.ErrorEvent{
			ExitReason: lux.ExitMaxInteractions,
			Reason:     fmt.Sprintf("codex asked for more than %d answers (maxInterrupts)", p.opts.MaxInterrupts),
		}}}, [][]byte{reply}
	}
	p.pending[in.ID] = &serverRequest{rpcID: m.ID, method: m.Method, kind: in.Kind, params: m.Params}
	return []lux.Event{{Type: lux.EventInterrupt, Interrupt: &in}}, nil
}

// interrupt describes a server request as an interrupt; false for a
// request the driver does not answer.
func (p *appProtocol) interrupt(m rpcMessage) (lux.Interrupt, bool) {
	var params map[string]any
	_ = json.Unmarshal(m.Params, &params)
	str := func(k string) string { s, _ := params[k].(string); return s }
	itemID := str("itemId")
	if itemID == "" {
		itemID = str("callId")
	}
	id := "rpc-" + strings.Trim(string(m.ID), `"`)
	if itemID != "" {
		id = itemID + ":" + strings.Trim(string(m.ID), `"`)
	}
	ctx := map[string]any{"method": m.Method}
	if itemID != "" {
		ctx["itemId"] = itemID
	}
	in := lux.Interrupt{ID: id, Context: ctx, Raw: rawOrEmpty(m.Params)}
	// Codex's approvals carry a decision only: a denial's reason never
	// reaches the model, which learns that the user declined.
	approve := func(a *lux.Approval) {
		in.Kind = lux.Approve
		a.Description, a.NoDenyReason = str("reason"), true
		in.Request = a
	}
	switch m.Method {
	case methodUserInput:
		var q struct {
			Questions []struct {
				ID       string       `json:"id"`
				Header   string       `json:"header"`
				Question string       `json:"question"`
				Options  []lux.Option `json:"options"`
			} `json:"questions"`
		}
		_ = json.Unmarshal(m.Params, &q)
		texts := make([]string, 0, len(q.Questions))
		for _, x := range q.Questions {
			texts = append(texts, x.Question)
			in.Questions = append(in.Questions, lux.Question{ID: x.ID, Text: x.Question, Header: x.Header, Options: x.Options})
		}
		driver.QuestionIDs(in.Questions)
		in.Kind, in.Question = lux.Ask, strings.Join(texts, "\n")
		if in.Question == "" {
			in.Question = "Codex requested user input"
		}
	case methodElicitation:
		in.Kind, in.Question = lux.Ask, str("message")
		ctx["serverName"] = params["serverName"]
		ctx["requestedSchema"] = params["requestedSchema"]
	case methodCommandApproval, methodLegacyExec:
		approve(&lux.Approval{Action: lux.ActionCommand, Tool: ToolCommand, Command: approvalCommand(m.Params), Cwd: str("cwd"),
			Input: map[string]any{"command": params["command"], "cwd": params["cwd"]}})
	case methodFileApproval, methodLegacyPatch:
		a := &lux.Approval{Action: lux.ActionEdit, Tool: ToolFileChange}
		changes, ok := p.changes[itemID]
		if !ok {
			var fc struct {
				FileChanges map[string]json.RawMessage `json:"fileChanges"`
			}
			_ = json.Unmarshal(m.Params, &fc)
			for _, path := range slices.Sorted(maps.Keys(fc.FileChanges)) {
				changes = append(changes, fileChange{Path: path})
			}
		}
		for _, c := range changes {
			a.Paths = append(a.Paths, c.Path)
		}
		if changes != nil {
			a.Input = map[string]any{"changes": changes}
		}
		if g := str("grantRoot"); g != "" {
			a.Paths = append(a.Paths, g)
		}
		approve(a)
	case methodPermissions:
		approve(&lux.Approval{Action: lux.ActionPermissions, Tool: "permissions", Input: params["permissions"]})
	case methodDynamicTool:
		in.Kind, in.Payload = lux.Custom, params
	default:
		return lux.Interrupt{}, false
	}
	return in, true
}

// approvalCommand is the command an approval asks to run: the one command
// of its parsed actions (Codex wraps commands in "/bin/bash -c '...'"),
// else the command line as the CLI gives it.
func approvalCommand(params json.RawMessage) string {
	var p struct {
		Command        any `json:"command"`
		CommandActions []struct {
			Command string `json:"command"`
		} `json:"commandActions"`
	}
	_ = json.Unmarshal(params, &p)
	if len(p.CommandActions) == 1 && p.CommandActions[0].Command != "" {
		return p.CommandActions[0].Command
	}
	switch c := p.Command.(type) {
	case string:
		return c
	case []any:
		parts := make([]string, 0, len(c))
		for _, x := range c {
			if s, ok := x.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " ")
	}
	return ""
}

// Answer returns the reply that delivers a to the server. It fails when a
// answers no pending interrupt or is of the wrong kind.
func (p *appProtocol) Answer(a lux.Answer) ([]byte, error) {
	req, ok := p.pending[a.ID]
	if !ok {
		return nil, fmt.Errorf("codex: no pending interrupt %q", a.ID)
	}
	if a.Kind != req.kind {
		return nil, fmt.Errorf("%w: interrupt %s %q answered with %s", lux.ErrAnswerMismatch, req.kind, a.ID, a.Kind)
	}
	result, err := req.result(a)
	if err != nil {
		return nil, err
	}
	delete(p.pending, a.ID)
	return mustJSON(rpcMessage{ID: req.rpcID, Result: mustJSON(result)}), nil
}

// result is the JSON-RPC result that answers the request with a.
func (r *serverRequest) result(a lux.Answer) (any, error) {
	switch r.method {
	case methodUserInput:
		return map[string]any{"answers": userInputAnswers(r.params, a)}, nil
	case methodCommandApproval, methodFileApproval:
		return map[string]any{"decision": pick(a.Approved, "accept", "decline")}, nil
	case methodLegacyExec, methodLegacyPatch:
		return map[string]any{"decision": pick(a.Approved, "approved", "denied")}, nil
	case methodPermissions:
		var params struct {
			Permissions json.RawMessage `json:"permissions"`
		}
		_ = json.Unmarshal(r.params, &params)
		granted := any(map[string]any{})
		if a.Approved && len(params.Permissions) > 0 {
			granted = params.Permissions
		}
		return map[string]any{"permissions": granted, "scope": "turn"}, nil
	case methodElicitation:
		return elicitationResult(r.params, a.Text), nil
	case methodDynamicTool:
		if m, ok := a.Payload.(map[string]any); ok && m["contentItems"] != nil {
			return m, nil
		}
		text := a.Text
		if a.Payload != nil {
			text = (lux.Interrupt{Kind: lux.Custom, Payload: a.Payload}).Text()
		}
		return map[string]any{"success": true, "contentItems": []any{map[string]any{"type": "inputText", "text": text}}}, nil
	}
	return nil, fmt.Errorf("codex: cannot answer %s", r.method)
}

// userInputAnswers maps each question id to its answers: a.Answers by
// question id (or text), else a.Text. An answer text that is a JSON object
// keyed by question id or text gives each question its own answer, a
// string or a list of strings, as the Claude Code driver takes it.
func userInputAnswers(params json.RawMessage, a lux.Answer) map[string]any {
	text := a.Text
	var q struct {
		Questions []struct {
			ID       string `json:"id"`
			Question string `json:"question"`
		} `json:"questions"`
	}
	_ = json.Unmarshal(params, &q)
	var byKey map[string]any
	if strings.HasPrefix(strings.TrimSpace(text), "{") {
		_ = json.Unmarshal([]byte(text), &byKey)
	}
	for k, v := range a.Answers {
		if byKey == nil {
			byKey = map[string]any{}
		}
		byKey[k] = v
	}
	out := map[string]any{}
	for i, x := range q.Questions {
		id := x.ID // as the interrupt numbers a question without one
		if id == "" {
			id = fmt.Sprintf("q%d", i+1)
		}
		v, ok := byKey[id]
		if !ok {
			v, ok = byKey[x.Question]
		}
		answers := []string{text}
		if ok {
			answers = stringList(v)
		}
		out[x.ID] = map[string]any{"answers": answers}
	}
	return out
}

func stringList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			} else {
				out = append(out, string(mustJSON(e)))
			}
		}
		return out
	}
	return []string{string(mustJSON(v))}
}

// elicitationResult accepts an MCP elicitation: a JSON object answer is
// the content; any other text fills the schema's only property, if it has
// exactly one, else the elicitation is declined.
func elicitationResult(params json.RawMessage, text string) map[string]any {
	var content map[string]any
	if json.Unmarshal([]byte(text), &content) == nil && content != nil {
		return map[string]any{"action": "accept", "content": content, "_meta": nil}
	}
	var p struct {
		RequestedSchema struct {
			Properties map[string]any `json:"properties"`
		} `json:"requestedSchema"`
	}
	_ = json.Unmarshal(params, &p)
	if len(p.RequestedSchema.Properties) == 1 {
		for k := range p.RequestedSchema.Properties {
			return map[string]any{"action": "accept", "content": map[string]any{k: text}, "_meta": nil}
		}
	}
	return map[string]any{"action": "decline", "content": nil, "_meta": nil}
}

func pick(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}
