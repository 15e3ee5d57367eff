package mcpprobe

import (
	"encoding/json"
	"fmt"

	"github.com/luxeval/lux"
)

// The progress kinds the probe emits besides tool-call and tool-result.
// Other drivers that learn a server's metadata may emit them too; the
// MCP assertions (package assertion/mcp) read them.
const (
	KindInit      = "mcp-init"       // Init: what the server said at initialize
	KindToolsList = "mcp-tools-list" // ToolsList: the tools the server listed
)

// Init is the payload of an mcp-init event: the server's answer to
// initialize.
type Init struct {
	ServerInfo      *ServerInfo `json:"serverInfo,omitempty"`
	ProtocolVersion string      `json:"protocolVersion,omitempty"`
	// Capabilities are the server's capabilities as it sent them:
	// "tools", "resources", "prompts", "logging", "completions", ...
	Capabilities map[string]any `json:"capabilities,omitempty"`
	Instructions string         `json:"instructions,omitempty"`
}

// ServerInfo is who the server says it is.
type ServerInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// ToolsList is the payload of an mcp-tools-list event: every tool of every
// page of one tools/list, in order.
type ToolsList struct {
	Tools []ListedTool `json:"tools"`
	Pages int          `json:"pages"`
}

// ListedTool is one tool as the server listed it.
type ListedTool struct {
	Name         string         `json:"name"`
	Title        string         `json:"title,omitempty"`
	Description  string         `json:"description,omitempty"`
	InputSchema  any            `json:"inputSchema,omitempty"`
	OutputSchema any            `json:"outputSchema,omitempty"`
	Annotations  map[string]any `json:"annotations,omitempty"`
}

// Names returns the names of the tools, in order.
func (l *ToolsList) Names() []string {
	out := make([]string, len(l.Tools))
	for i, t := range l.Tools {
		out[i] = t.Name
	}
	return out
}

// LastInit returns the payload of the last mcp-init event of the
// trajectory, or nil when there is none. A payload that does not decode is
// an error.
func LastInit(events []lux.Event) (*Init, error) {
	var out *Init
	err := last(events, KindInit, func(raw json.RawMessage) error {
		var in Init
		if err := json.Unmarshal(raw, &in); err != nil {
			return err
		}
		out = &in
		return nil
	})
	return out, err
}

// LastToolsList returns the payload of the last mcp-tools-list event of
// the trajectory, or nil when there is none. A payload that does not
// decode, or a tool without a name, is an error.
func LastToolsList(events []lux.Event) (*ToolsList, error) {
	var out *ToolsList
	err := last(events, KindToolsList, func(raw json.RawMessage) error {
		var l ToolsList
		if err := json.Unmarshal(raw, &l); err != nil {
			return err
		}
		for i, t := range l.Tools {
			if t.Name == "" {
				return fmt.Errorf("tools[%d] has no name", i)
			}
		}
		out = &l
		return nil
	})
	return out, err
}

// last decodes the payload of the last progress event of kind.
func last(events []lux.Event, kind string, decode func(json.RawMessage) error) error {
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		if e.Type != lux.EventProgress || e.Progress == nil || e.Progress.Kind != kind {
			continue
		}
		if len(e.Progress.Payload) == 0 {
			return fmt.Errorf("mcpprobe: %s event %q has no payload", kind, e.Progress.ID)
		}
		if err := decode(e.Progress.Payload); err != nil {
			return fmt.Errorf("mcpprobe: malformed %s event %q: %w", kind, e.Progress.ID, err)
		}
		return nil
	}
	return nil
}
