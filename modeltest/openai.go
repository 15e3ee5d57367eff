package modeltest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// openaiRequest is the part of a Responses API request body the server
// reads.
type openaiRequest struct {
	Model        string            `json:"model"`
	Instructions string            `json:"instructions"`
	Input        json.RawMessage   `json:"input"`
	Tools        []json.RawMessage `json:"tools"`
	Stream       bool              `json:"stream"`
	MaxTokens    int               `json:"max_output_tokens"`
}

// openaiItem is an input item; its fields are the union of those read.
type openaiItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   []openaiPart    `json:"summary"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     *string         `json:"input"`
	Output    json.RawMessage `json:"output"`
}

type openaiPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// decodeOpenAI fills in r's decoded view from its Responses API body and
// returns the index of the turn the request asks for, and the names of the
// custom (freeform) tools offered.
func decodeOpenAI(r *Request) (turn int, custom map[string]bool, err error) {
	var body openaiRequest
	if err := json.Unmarshal(r.Body, &body); err != nil {
		return 0, nil, fmt.Errorf("modeltest: decode responses request: %v", err)
	}
	r.Model = body.Model
	r.Stream = body.Stream
	r.MaxTokens = body.MaxTokens
	items, err := openaiItems(body.Input)
	if err != nil {
		return 0, nil, fmt.Errorf("modeltest: decode input: %v", err)
	}
	system := []string{}
	if body.Instructions != "" {
		system = append(system, body.Instructions)
	}
	for _, it := range items {
		m := it.message()
		if m.Role == "system" || m.Role == "developer" {
			for _, c := range m.Content {
				if c.Type == "text" {
					system = append(system, c.Text)
				}
			}
		}
		r.Messages = append(r.Messages, m)
	}
	r.System = strings.Join(system, "\n")
	nameToolResults(r.Messages)
	r.Tools = toolNames(body.Tools)
	custom = map[string]bool{}
	for _, raw := range body.Tools {
		var t struct{ Type, Name string }
		if json.Unmarshal(raw, &t) == nil && t.Type == "custom" {
			custom[t.Name] = true
		}
	}
	return openaiTurn(items), custom, nil
}

// openaiItems decodes the input, which is a string or a list of items.
func openaiItems(raw json.RawMessage) ([]openaiItem, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return []openaiItem{{Type: "message", Role: "user", Content: raw}}, nil
	}
	var items []openaiItem
	err := json.Unmarshal(raw, &items)
	return items, err
}

// byModel reports whether the model produced the item: an assistant
// message, a reasoning item or a tool call.
func (it openaiItem) byModel() bool {
	switch {
	case it.Type == "message" || (it.Type == "" && it.Role != ""):
		return it.Role == "assistant"
	case it.Type == "reasoning":
		return true
	}
	return strings.HasSuffix(it.Type, "_call")
}

// openaiTurn counts the model responses already in the input: the maximal
// runs of items the model produced.
func openaiTurn(items []openaiItem) int {
	n, inRun := 0, false
	for _, it := range items {
		if it.byModel() {
			if !inRun {
				n++
			}
			inRun = true
		} else {
			inRun = false
		}
	}
	return n
}

func (it openaiItem) message() Message {
	switch {
	case it.Type == "message" || (it.Type == "" && it.Role != ""):
		return Message{Role: it.Role, Content: openaiContent(it.Content)}
	case it.Type == "reasoning":
		var parts []string
		for _, p := range it.Summary {
			parts = append(parts, p.Text)
		}
		return Message{Role: "assistant", Content: []Content{{Type: "thinking", Text: strings.Join(parts, "\n")}}}
	case it.Type == "function_call":
		return Message{Role: "assistant", Content: []Content{{Type: "tool_call", Name: it.Name, CallID: it.CallID, Input: rawArguments(it.Arguments)}}}
	case it.Type == "custom_tool_call":
		var input string
		if it.Input != nil {
			input = *it.Input
		}
		b, _ := json.Marshal(input)
		return Message{Role: "assistant", Content: []Content{{Type: "tool_call", Name: it.Name, CallID: it.CallID, Input: b}}}
	case strings.HasSuffix(it.Type, "_call_output"):
		return Message{Role: "tool", Content: []Content{{Type: "tool_result", CallID: it.CallID, Text: openaiOutputText(it.Output)}}}
	case strings.HasSuffix(it.Type, "_call"):
		return Message{Role: "assistant", Content: []Content{{Type: "tool_call", Name: it.Type, CallID: it.CallID}}}
	}
	return Message{Role: it.Role, Content: []Content{{Type: it.Type}}}
}

// rawArguments returns function call arguments as JSON, or as a JSON string
// when they are not valid JSON.
func rawArguments(args string) json.RawMessage {
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(args)
	return b
}

// openaiContent decodes message content: a string or a list of parts.
func openaiContent(raw json.RawMessage) []Content {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return []Content{{Type: "text", Text: s}}
	}
	var parts []openaiPart
	_ = json.Unmarshal(raw, &parts)
	var out []Content
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text", "summary_text", "reasoning_text":
			out = append(out, Content{Type: "text", Text: p.Text})
		default:
			out = append(out, Content{Type: p.Type})
		}
	}
	return out
}

// openaiOutputText flattens a tool call output (a string or a list of
// parts) to text.
func openaiOutputText(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	var texts []string
	for _, c := range openaiContent(raw) {
		if c.Type == "text" {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// openaiOutput returns the output items of a turn. A tool call to a custom
// tool becomes a custom_tool_call.
func openaiOutput(t Turn, key string, custom map[string]bool) []map[string]any {
	var items []map[string]any
	if t.Thinking != "" {
		items = append(items, map[string]any{
			"type": "reasoning", "id": fmt.Sprintf("rs_modeltest_%s", key),
			"summary": []any{map[string]any{"type": "summary_text", "text": t.Thinking}},
		})
	}
	if t.Text != "" {
		items = append(items, map[string]any{
			"type": "message", "id": fmt.Sprintf("msg_modeltest_%s", key), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": t.Text, "annotations": []any{}}},
		})
	}
	for j, c := range t.ToolCalls {
		id := c.callID(OpenAI, key, j)
		if custom[c.Name] {
			input, ok := c.Input.(string)
			if !ok {
				raw, _ := encodeInput(c.Input)
				input = string(raw)
			}
			items = append(items, map[string]any{
				"type": "custom_tool_call", "id": fmt.Sprintf("ctc_modeltest_%s_%d", key, j),
				"call_id": id, "name": c.Name, "input": input, "status": "completed",
			})
			continue
		}
		args, _ := encodeInput(c.Input)
		items = append(items, map[string]any{
			"type": "function_call", "id": fmt.Sprintf("fc_modeltest_%s_%d", key, j),
			"call_id": id, "name": c.Name, "arguments": string(args), "status": "completed",
		})
	}
	return items
}

// openaiUsage is the usage object of a response.
func openaiUsage(u Usage) map[string]any {
	input := u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens
	return map[string]any{
		"input_tokens":          input,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CacheReadTokens},
		"output_tokens":         u.OutputTokens,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
		"total_tokens":          input + u.OutputTokens,
	}
}

// openaiResponse is a response object; output and usage are left out while
// it is in progress.
func openaiResponse(key string, model, status string, output []map[string]any, usage map[string]any) map[string]any {
	if output == nil {
		output = []map[string]any{}
	}
	r := map[string]any{
		"id": fmt.Sprintf("resp_modeltest_%s", key), "object": "response", "created_at": time.Now().Unix(),
		"model": model, "status": status, "output": output, "error": nil, "incomplete_details": nil,
	}
	if usage != nil {
		r["usage"] = usage
	}
	return r
}

// openaiEvents is the event stream answering a turn.
func openaiEvents(t Turn, key string, model string, custom map[string]bool) []event {
	output := openaiOutput(t, key, custom)
	var events []event
	add := func(typ string, fields map[string]any) {
		fields["type"] = typ
		events = append(events, event{typ, fields})
	}
	add("response.created", map[string]any{"response": openaiResponse(key, model, "in_progress", nil, nil)})
	add("response.in_progress", map[string]any{"response": openaiResponse(key, model, "in_progress", nil, nil)})
	for i, item := range output {
		id := item["id"]
		started := map[string]any{}
		for k, v := range item {
			started[k] = v
		}
		started["status"] = "in_progress"
		switch item["type"] {
		case "reasoning":
			started["summary"] = []any{}
			add("response.output_item.added", map[string]any{"output_index": i, "item": started})
			part := map[string]any{"type": "summary_text", "text": t.Thinking}
			add("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}})
			add("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "delta": t.Thinking})
			add("response.reasoning_summary_text.done", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "text": t.Thinking})
			add("response.reasoning_summary_part.done", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "part": part})
		case "message":
			started["content"] = []any{}
			add("response.output_item.added", map[string]any{"output_index": i, "item": started})
			part := map[string]any{"type": "output_text", "text": t.Text, "annotations": []any{}}
			add("response.content_part.added", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			add("response.output_text.delta", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "delta": t.Text})
			add("response.output_text.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "text": t.Text})
			add("response.content_part.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": part})
		case "function_call":
			started["arguments"] = ""
			add("response.output_item.added", map[string]any{"output_index": i, "item": started})
			add("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": i, "delta": item["arguments"]})
			add("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": i, "arguments": item["arguments"]})
		case "custom_tool_call":
			started["input"] = ""
			add("response.output_item.added", map[string]any{"output_index": i, "item": started})
			add("response.custom_tool_call_input.delta", map[string]any{"item_id": id, "output_index": i, "delta": item["input"]})
			add("response.custom_tool_call_input.done", map[string]any{"item_id": id, "output_index": i, "input": item["input"]})
		}
		add("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	add("response.completed", map[string]any{"response": openaiResponse(key, model, "completed", output, openaiUsage(t.Usage))})
	for i := range events {
		events[i].data.(map[string]any)["sequence_number"] = i
	}
	return events
}

// openaiErrorType is the error type the OpenAI API uses for an HTTP status.
func openaiErrorType(status int) string {
	switch status {
	case 400, 404, 409, 413, 422:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 429:
		return "rate_limit_error"
	}
	return "server_error"
}

// openaiError is the OpenAI API error body.
func openaiError(typ, message string) map[string]any {
	return map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": nil}}
}

// openaiFailed is the response.failed event ending a stream with an error.
func openaiFailed(key string, model, code, message string) event {
	resp := openaiResponse(key, model, "failed", nil, nil)
	resp["error"] = map[string]any{"code": code, "message": message}
	return event{"response.failed", map[string]any{"type": "response.failed", "response": resp}}
}
