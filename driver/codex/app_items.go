package codex

import (
	"encoding/json"
	"strings"

	"github.com/luxeval/lux"
)

// appItem is the union of the fields of app-server's thread items.
type appItem struct {
	ID               string          `json:"id"`
	Type             string          `json:"type"`
	Text             string          `json:"text"`
	Summary          []string        `json:"summary"`
	Content          json.RawMessage `json:"content"`
	Command          string          `json:"command"`
	Cwd              string          `json:"cwd"`
	AggregatedOutput *string         `json:"aggregatedOutput"`
	ExitCode         *int            `json:"exitCode"`
	DurationMs       *float64        `json:"durationMs"`
	Status           string          `json:"status"`
	Changes          []fileChange    `json:"changes"`
	Server           string          `json:"server"`
	Tool             string          `json:"tool"`
	Arguments        json.RawMessage `json:"arguments"`
	Result           json.RawMessage `json:"result"`
	Error            json.RawMessage `json:"error"`
	ContentItems     json.RawMessage `json:"contentItems"`
	Success          *bool           `json:"success"`
	Query            string          `json:"query"`
}

// item translates one thread item, started or completed.
func (p *appProtocol) item(raw json.RawMessage, completed bool) []lux.Event {
	var it appItem
	if err := json.Unmarshal(raw, &it); err != nil {
		if !completed {
			return nil
		}
		return []lux.Event{p.progress(KindCodexItem, raw)}
	}
	switch it.Type {
	case "userMessage", "hookPrompt":
		return nil // the prompt, as sent
	case "agentMessage":
		if !completed {
			return nil
		}
		return []lux.Event{progressEvent(it.ID, lux.KindAgentMessage, &lux.Message{Text: it.Text})}
	case "reasoning":
		if !completed {
			return nil
		}
		text := strings.Join(it.Summary, "\n")
		if text == "" {
			var content []string
			_ = json.Unmarshal(it.Content, &content)
			text = strings.Join(content, "\n")
		}
		return []lux.Event{progressEvent(it.ID, lux.KindReasoning, &lux.Message{Text: text})}
	case "commandExecution":
		input := map[string]any{"command": it.Command}
		if it.Cwd != "" {
			input["cwd"] = it.Cwd
		}
		call := &lux.ToolCall{Name: ToolCommand, Input: input, ToolUseID: it.ID}
		return p.called.events(call, completed, func() *lux.ToolResult {
			r := commandResult(it.ID, it.AggregatedOutput, it.ExitCode, it.Status)
			r.DurationMs = it.DurationMs
			return r
		})
	case "fileChange":
		p.changes[it.ID] = it.Changes
		call, result := fileChangeCall(it.ID, it.Changes, it.Status)
		return p.called.events(call, completed, result)
	case "mcpToolCall":
		call := &lux.ToolCall{Name: it.Tool, Input: rawOrEmpty(it.Arguments), ToolUseID: it.ID}
		return p.called.events(call, completed, func() *lux.ToolResult {
			r := mcpResult(it.ID, it.Tool, it.Result, it.Error, it.Status)
			r.DurationMs = it.DurationMs
			return r
		})
	case "dynamicToolCall":
		call := &lux.ToolCall{Name: it.Tool, Input: rawOrEmpty(it.Arguments), ToolUseID: it.ID}
		return p.called.events(call, completed, func() *lux.ToolResult {
			content := rawOrEmpty(it.ContentItems)
			return &lux.ToolResult{
				Name: it.Tool, ToolUseID: it.ID, Content: content, Text: contentText(content),
				IsError:    failedStatus(it.Status) || (it.Success != nil && !*it.Success),
				DurationMs: it.DurationMs,
			}
		})
	case "webSearch":
		call, result := webSearch(it.ID, it.Query)
		return p.called.events(call, completed, result)
	}
	return otherItem(it.ID, raw, completed)
}
