package claudecode

import (
	"encoding/json"

	"github.com/luxeval/lux"
)

// Progress kinds this driver emits besides the shared ones (agent-message,
// reasoning, tool-call, tool-result, usage).
const (
	// KindPermissionDenied is a tool call the permission mode or rules
	// refused without asking (system/permission_denied). Payload:
	// PermissionDenied.
	KindPermissionDenied = "permission-denied"
	// KindAPIRetry is a failed API request the CLI is about to retry
	// (system/api_retry). Payload: APIRetry.
	KindAPIRetry = "api-retry"
	// KindAPIError is the CLI's own message about an API call that failed
	// for good (a synthetic assistant message). Payload: APIError.
	KindAPIError = "api-error"
	// KindResult is the CLI's final report of a run that ended in error;
	// a run that ends normally carries the same report in Done.Summary.
	// Payload: Summary.
	KindResult = "result"
	// KindUserMessage is text the CLI put in the conversation as the user
	// (a subagent's prompt, say). Payload: lux.Message.
	KindUserMessage = "user-message"
	// KindNotice is an informational notice of the CLI. Payload:
	// {"text": ...}.
	KindNotice = "notice"
	// KindControl is a control request the driver cannot answer; it was
	// refused. Payload: the line as printed.
	KindControl = "control-request"
	// KindClaudeEvent is any other line the driver does not translate.
	// Payload: the line as printed.
	KindClaudeEvent = "claude-event"
	// KindStdout is a stdout line that is not a JSON object. Payload:
	// {"text": <the line>}.
	KindStdout = "stdout-text"
)

// PermissionDenied is the payload of a permission-denied progress event.
type PermissionDenied struct {
	ToolName   string `json:"toolName"`
	ToolUseID  string `json:"toolUseId"`
	Message    string `json:"message,omitempty"`
	ReasonType string `json:"reasonType,omitempty"`
	ReasonCode string `json:"reasonCode,omitempty"`
}

// APIRetry is the payload of an api-retry progress event.
type APIRetry struct {
	Attempt      int     `json:"attempt"`
	MaxRetries   int     `json:"maxRetries"`
	RetryDelayMs float64 `json:"retryDelayMs"`
	Status       *int    `json:"status,omitempty"`
	Error        string  `json:"error,omitempty"`
}

// APIError is the payload of an api-error progress event.
type APIError struct {
	Text   string `json:"text"`
	Status *int   `json:"status,omitempty"`
	Type   string `json:"type,omitempty"`
}

// Summary is the CLI's final report (the result line): Done.Summary of a
// run that ended normally, the payload of a result progress event
// otherwise.
type Summary struct {
	SessionID         string          `json:"sessionId,omitempty"`
	Subtype           string          `json:"subtype,omitempty"`
	IsError           bool            `json:"isError"`
	Result            string          `json:"result,omitempty"`
	StopReason        string          `json:"stopReason,omitempty"`
	TerminalReason    string          `json:"terminalReason,omitempty"`
	APIErrorStatus    *int            `json:"apiErrorStatus,omitempty"`
	NumTurns          int             `json:"numTurns"`
	DurationMs        *float64        `json:"durationMs,omitempty"`
	DurationAPIMs     *float64        `json:"durationApiMs,omitempty"`
	CostUSD           *float64        `json:"costUsd,omitempty"`
	Usage             *lux.TokenUsage `json:"usage,omitempty"`
	ModelUsage        json.RawMessage `json:"modelUsage,omitempty"`
	PermissionDenials json.RawMessage `json:"permissionDenials,omitempty"`
}
