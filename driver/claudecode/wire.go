package claudecode

import (
	"bytes"
	"encoding/json"

	"github.com/luxeval/lux"
)

// The stream-json lines the CLI prints on stdout, as far as the driver
// reads them. Each line is a JSON object whose "type" (and, for system
// lines, "subtype") says which of the structs below it decodes into.
// Fields the driver does not need are left out and unknown fields are
// ignored, so newer CLIs keep parsing.

// envelope is what every stdout line has.
type envelope struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
}

// initLine is system/init, the first line of a user turn.
type initLine struct {
	SessionID      string   `json:"session_id"`
	Model          string   `json:"model"`
	Version        string   `json:"claude_code_version"`
	CWD            string   `json:"cwd"`
	PermissionMode string   `json:"permissionMode"`
	Tools          []string `json:"tools"`
	APIKeySource   string   `json:"apiKeySource"`
	Plugins        []struct {
		Name string `json:"name"`
		Path string `json:"path"`
	} `json:"plugins"`
}

// messageLine is an assistant or user line: one message (for assistant
// lines, one content block of a model response).
type messageLine struct {
	Message         message         `json:"message"`
	ParentToolUseID string          `json:"parent_tool_use_id"`
	ToolUseResult   json.RawMessage `json:"tool_use_result"` // user: the tool's structured result
	// A synthetic assistant message that reports a failed API call.
	APIError       bool   `json:"is_api_error_message"`
	APIErrorStatus *int   `json:"api_error_status"`
	APIErrorType   string `json:"api_error_type"`
}

// message is an Anthropic message as the CLI prints it.
type message struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"` // a string or a list of blocks
	Usage   *apiUsage       `json:"usage"`
}

// blocks returns the message's content blocks; string content is one text
// block.
func (m message) blocks() []block {
	c := bytes.TrimSpace(m.Content)
	if len(c) == 0 {
		return nil
	}
	if c[0] == '"' {
		var s string
		if json.Unmarshal(c, &s) == nil {
			return []block{{Type: "text", Text: s}}
		}
		return nil
	}
	var bs []block
	if json.Unmarshal(c, &bs) != nil {
		return nil
	}
	return bs
}

// block is one content block of a message.
type block struct {
	Type string `json:"type"`
	// text
	Text string `json:"text"`
	// thinking
	Thinking string `json:"thinking"`
	// tool_use
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
	// tool_result
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// apiUsage is the usage object of the Anthropic API. A nil count was not
// reported.
type apiUsage struct {
	Input         *int64 `json:"input_tokens"`
	Output        *int64 `json:"output_tokens"`
	CacheRead     *int64 `json:"cache_read_input_tokens"`
	CacheCreation *int64 `json:"cache_creation_input_tokens"`
}

// reported tells whether any of the four counts is present.
func (u *apiUsage) reported() bool {
	return u != nil && (u.Input != nil || u.Output != nil || u.CacheRead != nil || u.CacheCreation != nil)
}

// tokens returns the counts, a missing or negative one as zero.
func (u *apiUsage) tokens() lux.TokenUsage {
	val := func(p *int64) int64 {
		if p == nil || *p < 0 {
			return 0
		}
		return *p
	}
	return lux.TokenUsage{Input: val(u.Input), Output: val(u.Output), CacheRead: val(u.CacheRead), CacheCreation: val(u.CacheCreation)}
}

// streamEventLine is a stream_event line (--include-partial-messages): a
// raw API streaming event of the response with id APIMessageID.
type streamEventLine struct {
	Event struct {
		Type    string    `json:"type"`
		Message *message  `json:"message"` // message_start
		Usage   *apiUsage `json:"usage"`   // message_delta
	} `json:"event"`
	APIMessageID    string `json:"api_message_id"`
	ParentToolUseID string `json:"parent_tool_use_id"`
}

// permissionDeniedLine is system/permission_denied: a tool call the
// permission mode or rules refused without asking.
type permissionDeniedLine struct {
	ToolName   string `json:"tool_name"`
	ToolUseID  string `json:"tool_use_id"`
	Message    string `json:"message"`
	ReasonType string `json:"decision_reason_type"`
	ReasonCode string `json:"decision_reason_code"`
}

// apiRetryLine is system/api_retry: a failed API request about to be
// retried.
type apiRetryLine struct {
	Attempt      int     `json:"attempt"`
	MaxRetries   int     `json:"max_retries"`
	RetryDelayMs float64 `json:"retry_delay_ms"`
	ErrorStatus  *int    `json:"error_status"`
	Error        string  `json:"error"`
}

// controlRequestLine is a control_request line: the CLI asks the harness
// (here: whether a tool may run, or the user's answer to AskUserQuestion).
type controlRequestLine struct {
	RequestID string         `json:"request_id"`
	Request   controlRequest `json:"request"`
}

// controlRequest is the request of a control_request line.
type controlRequest struct {
	Subtype                 string          `json:"subtype"`
	ToolName                string          `json:"tool_name"`
	DisplayName             string          `json:"display_name"`
	Input                   json.RawMessage `json:"input"`
	ToolUseID               string          `json:"tool_use_id"`
	Description             string          `json:"description"`
	BlockedPath             string          `json:"blocked_path"`
	DecisionReason          string          `json:"decision_reason"`
	PermissionSuggestions   json.RawMessage `json:"permission_suggestions"`
	RequiresUserInteraction bool            `json:"requires_user_interaction"`
}

// resultLine is the result line that ends a user turn.
type resultLine struct {
	Subtype           string          `json:"subtype"`
	IsError           bool            `json:"is_error"`
	Result            *string         `json:"result"`
	Errors            []string        `json:"errors"`
	SessionID         string          `json:"session_id"`
	NumTurns          int             `json:"num_turns"`
	DurationMs        *float64        `json:"duration_ms"`
	DurationAPIMs     *float64        `json:"duration_api_ms"`
	TotalCostUSD      *float64        `json:"total_cost_usd"`
	StopReason        string          `json:"stop_reason"`
	TerminalReason    string          `json:"terminal_reason"`
	APIErrorStatus    *int            `json:"api_error_status"`
	Usage             *apiUsage       `json:"usage"`
	ModelUsage        json.RawMessage `json:"modelUsage"`
	PermissionDenials json.RawMessage `json:"permission_denials"`
}

// decodeEnvelope decodes the type of one stdout line; ok is false for
// anything that is not a JSON object with a type.
func decodeEnvelope(b []byte) (envelope, bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return envelope{}, false
	}
	var e envelope
	if err := json.Unmarshal(b, &e); err != nil || e.Type == "" {
		return envelope{}, false
	}
	return e, true
}
