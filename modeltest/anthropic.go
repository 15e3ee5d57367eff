package modeltest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// anthropicRequest is the part of a Messages API request body the server
// reads.
type anthropicRequest struct {
	Model     string             `json:"model"`
	System    json.RawMessage    `json:"system"`
	Messages  []anthropicMessage `json:"messages"`
	Tools     []json.RawMessage  `json:"tools"`
	Stream    bool               `json:"stream"`
	MaxTokens int                `json:"max_tokens"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// decodeAnthropic fills in r's decoded view from its Messages API body and
// returns the index of the turn the request asks for.
func decodeAnthropic(r *Request) (turn int, err error) {
	var body anthropicRequest
	if err := json.Unmarshal(r.Body, &body); err != nil {
		return 0, fmt.Errorf("modeltest: decode messages request: %v", err)
	}
	r.Model = body.Model
	r.Stream = body.Stream
	r.MaxTokens = body.MaxTokens
	if r.System, err = anthropicText(body.System); err != nil {
		return 0, fmt.Errorf("modeltest: decode system: %v", err)
	}
	for i, m := range body.Messages {
		blocks, err := anthropicBlocks(m.Content)
		if err != nil {
			return 0, fmt.Errorf("modeltest: decode messages[%d].content: %v", i, err)
		}
		msg := Message{Role: m.Role}
		for _, b := range blocks {
			msg.Content = append(msg.Content, b.content())
		}
		r.Messages = append(r.Messages, msg)
	}
	nameToolResults(r.Messages)
	r.Tools = toolNames(body.Tools)
	return anthropicTurn(body.Messages), nil
}

// anthropicTurn counts the model responses already in the history: the runs
// of "assistant" messages, which only "user" messages end (Claude Code puts
// "system" messages in the history too).
func anthropicTurn(msgs []anthropicMessage) int {
	n, inRun := 0, false
	for _, m := range msgs {
		switch m.Role {
		case "assistant":
			if !inRun {
				n++
			}
			inRun = true
		case "user":
			inRun = false
		}
	}
	return n
}

// anthropicBlocks decodes message content, which is a string or a list of
// content blocks.
func anthropicBlocks(raw json.RawMessage) ([]anthropicBlock, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return []anthropicBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, err
	}
	return blocks, nil
}

// anthropicText flattens a string or a list of content blocks to text.
func anthropicText(raw json.RawMessage) (string, error) {
	blocks, err := anthropicBlocks(raw)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n"), nil
}

func (b anthropicBlock) content() Content {
	switch b.Type {
	case "text":
		return Content{Type: "text", Text: b.Text}
	case "thinking":
		return Content{Type: "thinking", Text: b.Thinking}
	case "tool_use", "server_tool_use":
		return Content{Type: "tool_call", Name: b.Name, CallID: b.ID, Input: b.Input}
	case "tool_result":
		text, _ := anthropicText(b.Content)
		return Content{Type: "tool_result", CallID: b.ToolUseID, Text: text, IsError: b.IsError}
	}
	return Content{Type: b.Type, Text: b.Text}
}

// toolNames returns the name of each tool definition, or its type when it
// has no name.
func toolNames(tools []json.RawMessage) []string {
	var names []string
	for _, raw := range tools {
		var t struct {
			Name string `json:"name"`
			Type string `json:"type"`
		}
		_ = json.Unmarshal(raw, &t)
		if t.Name != "" {
			names = append(names, t.Name)
		} else {
			names = append(names, t.Type)
		}
	}
	return names
}

// anthropicMessageID is the id of the message answering the turn with the
// given key.
func anthropicMessageID(key string) string {
	return fmt.Sprintf("msg_modeltest_%s", key)
}

// anthropicContent returns the content blocks of a turn as in a
// non-streaming Message.
func anthropicContent(t Turn, key string) []map[string]any {
	var blocks []map[string]any
	if t.Thinking != "" {
		blocks = append(blocks, map[string]any{"type": "thinking", "thinking": t.Thinking, "signature": thinkingSignature(key)})
	}
	if t.Text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": t.Text})
	}
	for j, c := range t.ToolCalls {
		input, _ := encodeInput(c.Input)
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.callID(Anthropic, key, j), "name": c.Name, "input": input})
	}
	return blocks
}

func thinkingSignature(key string) string {
	return fmt.Sprintf("modeltest-signature-%s", key)
}

// anthropicUsage is the usage object of a Message.
func anthropicUsage(u Usage) map[string]any {
	return map[string]any{
		"input_tokens":                u.InputTokens,
		"output_tokens":               u.OutputTokens,
		"cache_creation_input_tokens": u.CacheCreationTokens,
		"cache_read_input_tokens":     u.CacheReadTokens,
	}
}

// anthropicMessageJSON is the non-streaming answer to a turn.
func anthropicMessageJSON(t Turn, key string, model string) map[string]any {
	content := anthropicContent(t, key)
	if content == nil {
		content = []map[string]any{}
	}
	return map[string]any{
		"id":            anthropicMessageID(key),
		"type":          "message",
		"role":          "assistant",
		"model":         model,
		"content":       content,
		"stop_reason":   t.stopReason(),
		"stop_sequence": nil,
		"usage":         anthropicUsage(t.Usage),
	}
}

// anthropicEvents is the event stream answering a turn.
func anthropicEvents(t Turn, key string, model string) []event {
	startUsage := anthropicUsage(t.Usage)
	startUsage["output_tokens"] = 0
	events := []event{{"message_start", map[string]any{
		"type": "message_start",
		"message": map[string]any{
			"id": anthropicMessageID(key), "type": "message", "role": "assistant", "model": model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": startUsage,
		},
	}}}
	index := 0
	block := func(start map[string]any, deltas ...map[string]any) {
		events = append(events, event{"content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": start}})
		for _, d := range deltas {
			events = append(events, event{"content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": d}})
		}
		events = append(events, event{"content_block_stop", map[string]any{"type": "content_block_stop", "index": index}})
		index++
	}
	if t.Thinking != "" {
		block(map[string]any{"type": "thinking", "thinking": "", "signature": ""},
			map[string]any{"type": "thinking_delta", "thinking": t.Thinking},
			map[string]any{"type": "signature_delta", "signature": thinkingSignature(key)})
	}
	if t.Text != "" {
		block(map[string]any{"type": "text", "text": ""}, map[string]any{"type": "text_delta", "text": t.Text})
	}
	for j, c := range t.ToolCalls {
		input, _ := encodeInput(c.Input)
		block(map[string]any{"type": "tool_use", "id": c.callID(Anthropic, key, j), "name": c.Name, "input": map[string]any{}},
			map[string]any{"type": "input_json_delta", "partial_json": string(input)})
	}
	events = append(events,
		event{"message_delta", map[string]any{
			"type":  "message_delta",
			"delta": map[string]any{"stop_reason": t.stopReason(), "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": t.Usage.OutputTokens},
		}},
		event{"message_stop", map[string]any{"type": "message_stop"}},
	)
	return events
}

// anthropicErrorType is the error type the Messages API uses for an HTTP
// status.
func anthropicErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 402:
		return "billing_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 504:
		return "timeout_error"
	case 529:
		return "overloaded_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

// anthropicError is the Messages API error body.
func anthropicError(typ, message string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": message}}
}
