package modeltest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/go-multierror"
)

// A Script is what the scripted model answers, one Turn per model response.
// Turn i answers every request whose conversation history already holds i
// model responses (see the package documentation), so a retried request gets
// the same turn again. A Script can be kept as JSON: the fields' JSON names
// are in snake case, e.g. [{"text": "hi", "tool_calls": [{"name": "Bash",
// "input": {"command": "ls"}}], "fail": {"status": 500, "times": 1}}].
type Script []Turn

// A Turn is one scripted model response. Its content is streamed in this
// order: the thinking text, the assistant text, then the tool calls.
type Turn struct {
	// Thinking is the model's thinking (Anthropic: a "thinking" block) or
	// reasoning summary (OpenAI: a "reasoning" item). Empty means none.
	Thinking string `json:"thinking,omitempty"`
	// Text is the assistant's text. Empty means no text block.
	Text string `json:"text,omitempty"`
	// ToolCalls are the tools the model calls, in order.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Usage is the token usage reported for the response.
	Usage Usage `json:"usage,omitzero"`
	// StopReason overrides the Anthropic stop_reason. The default is
	// "tool_use" when the turn calls tools and "end_turn" otherwise.
	StopReason string `json:"stop_reason,omitempty"`
	// Fail, when set, makes requests for this turn fail instead; see Failure.
	Fail *Failure `json:"fail,omitempty"`
	// Hold, when not nil, makes the server wait until it is closed before
	// answering (or until the client goes away or the server closes): a
	// slow answer that the test ends when it chooses, never a sleep.
	Hold <-chan struct{} `json:"-"`
	// Held, when not nil, is sent to (without blocking: give it a buffer)
	// each time a request for this turn starts waiting on Hold, so that a
	// test knows the client is waiting.
	Held chan<- struct{} `json:"-"`
}

// A ToolCall is a tool the model calls.
type ToolCall struct {
	// ID is the call's id (Anthropic tool_use id, OpenAI call_id). Empty
	// means a deterministic id made from the turn and call index.
	ID string `json:"id,omitempty"`
	// Name is the tool's name, e.g. "Write" or "Bash" for Claude Code,
	// "exec_command" or "apply_patch" for Codex.
	Name string `json:"name"`
	// Input is the call's input. It is encoded as JSON, except that a
	// json.RawMessage is sent as it is. For an OpenAI custom (freeform)
	// tool, such as Codex's apply_patch, a string Input is sent as the raw
	// tool input, e.g. the patch text.
	Input any `json:"input,omitempty"`
}

// Usage is the token usage a turn reports. The fields describe the same
// tokens for both APIs:
//
//   - Anthropic: input_tokens, cache_read_input_tokens,
//     cache_creation_input_tokens and output_tokens are the four fields as
//     they are.
//   - OpenAI Responses: input_tokens counts every input token, so it is
//     InputTokens+CacheReadTokens+CacheCreationTokens;
//     input_tokens_details.cached_tokens is CacheReadTokens;
//     output_tokens is OutputTokens, of which
//     output_tokens_details.reasoning_tokens is ReasoningTokens.
type Usage struct {
	InputTokens         int `json:"input_tokens,omitempty"`          // uncached input tokens
	OutputTokens        int `json:"output_tokens,omitempty"`         // output tokens, reasoning included
	CacheReadTokens     int `json:"cache_read_tokens,omitempty"`     // input tokens read from the prompt cache
	CacheCreationTokens int `json:"cache_creation_tokens,omitempty"` // input tokens written to the prompt cache (Anthropic)
	ReasoningTokens     int `json:"reasoning_tokens,omitempty"`      // the part of OutputTokens spent reasoning (OpenAI)
}

// A Failure makes the requests for a turn fail. Exactly one of Status, Cut,
// Drop, Stall and StreamError must be set.
//
// Agent CLIs retry failed requests, and a retry carries the same history, so
// it asks for the same turn. Times bounds how many attempts at the turn fail:
// with Times n, the first n requests for the turn fail and the next ones get
// the turn's content. With Times 0 every attempt fails, which ends the run
// once the CLI gives up retrying. The attempt counter is the only state the
// server keeps per turn.
type Failure struct {
	// Status answers with this HTTP status (e.g. 400, 429, 500, 529) and
	// the vendor's JSON error body, built from Type and Message.
	Status int `json:"status,omitempty"`
	// Cut ends the response early but cleanly after After events: the
	// HTTP body ends without the stream's final event. A non-streaming
	// answer is cut in the middle of its JSON.
	Cut bool `json:"cut,omitempty"`
	// Drop closes the connection abruptly after After events, leaving the
	// HTTP body unfinished. A non-streaming request is dropped before any
	// answer.
	Drop bool `json:"drop,omitempty"`
	// Stall sends After events, then holds the connection open without
	// sending anything until the client goes away or the server closes.
	Stall bool `json:"stall,omitempty"`
	// StreamError sends After events, then an error event (Anthropic:
	// "error"; OpenAI: "response.failed") built from Type and Message, and
	// ends the stream. A non-streaming request gets an HTTP 500 error
	// built from Type and Message instead.
	StreamError bool `json:"stream_error,omitempty"`
	// After is the number of events sent before a Cut, Drop, Stall or
	// StreamError.
	After int `json:"after,omitempty"`

	// Type is the vendor's error type (Anthropic error.type, OpenAI
	// error.type, or response.error.code in "response.failed"). Empty means
	// the type that the vendor uses for Status, e.g. "api_error" for 500 or
	// "overloaded_error" for 529.
	Type string `json:"type,omitempty"`
	// Message is the error message. Empty means a message naming the
	// injected failure.
	Message string `json:"message,omitempty"`
	// Body, when set, replaces the whole JSON error body of a Status
	// failure.
	Body string `json:"body,omitempty"`
	// Header holds extra response headers of a Status failure, e.g.
	// {"retry-after": "0"}.
	Header map[string]string `json:"header,omitempty"`

	// Times is how many attempts at the turn fail before the turn's content
	// is served. 0 means every attempt fails.
	Times int `json:"times,omitempty"`
}

// Validate reports every problem of the script at once, naming the field
// path of each, e.g. "modeltest: script[1].ToolCalls[0].Name: empty".
func (s Script) Validate() error {
	var errs *multierror.Error
	add := func(path, format string, args ...any) {
		errs = multierror.Append(errs, fmt.Errorf("modeltest: %s: %s", path, fmt.Sprintf(format, args...)))
	}
	for i, turn := range s {
		p := fmt.Sprintf("script[%d]", i)
		ids := map[string]bool{}
		for j, call := range turn.ToolCalls {
			cp := fmt.Sprintf("%s.ToolCalls[%d]", p, j)
			if strings.TrimSpace(call.Name) == "" {
				add(cp+".Name", "empty")
			}
			if call.ID != "" {
				if ids[call.ID] {
					add(cp+".ID", "duplicate id %q", call.ID)
				}
				ids[call.ID] = true
			}
			if _, err := encodeInput(call.Input); err != nil {
				add(cp+".Input", "%v", err)
			}
		}
		if turn.Fail != nil {
			validateFailure(p+".Fail", turn.Fail, add)
		}
	}
	if errs == nil {
		return nil
	}
	errs.ErrorFormat = listErrors
	return errs
}

func validateFailure(p string, f *Failure, add func(path, format string, args ...any)) {
	kinds := 0
	for _, set := range []bool{f.Status != 0, f.Cut, f.Drop, f.Stall, f.StreamError} {
		if set {
			kinds++
		}
	}
	switch {
	case kinds == 0:
		add(p, "none of Status, Cut, Drop, Stall, StreamError is set")
	case kinds > 1:
		add(p, "more than one of Status, Cut, Drop, Stall, StreamError is set")
	}
	if f.Status != 0 && (f.Status < 400 || f.Status > 599) {
		add(p+".Status", "%d is not an HTTP error status (400-599)", f.Status)
	}
	if f.After < 0 {
		add(p+".After", "negative (%d)", f.After)
	}
	if f.Times < 0 {
		add(p+".Times", "negative (%d)", f.Times)
	}
	if f.Body != "" && f.Status == 0 {
		add(p+".Body", "set without Status")
	}
}

// listErrors formats a multierror as its errors, one per line.
func listErrors(errs []error) string {
	lines := make([]string, len(errs))
	for i, err := range errs {
		lines[i] = err.Error()
	}
	return strings.Join(lines, "\n")
}

// encodeInput returns a tool call's input as JSON.
func encodeInput(input any) (json.RawMessage, error) {
	switch v := input.(type) {
	case nil:
		return json.RawMessage(`{}`), nil
	case json.RawMessage:
		if !json.Valid(v) {
			return nil, fmt.Errorf("invalid JSON")
		}
		return v, nil
	}
	b, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("cannot encode as JSON: %v", err)
	}
	return b, nil
}

// callID returns the id of call j of the turn with the given key.
func (c ToolCall) callID(api API, key string, j int) string {
	if c.ID != "" {
		return c.ID
	}
	if api == OpenAI {
		return fmt.Sprintf("call_modeltest_%s_%d", key, j)
	}
	return fmt.Sprintf("toolu_modeltest_%s_%d", key, j)
}

// stopReason returns the Anthropic stop_reason of the turn.
func (t Turn) stopReason() string {
	switch {
	case t.StopReason != "":
		return t.StopReason
	case len(t.ToolCalls) > 0:
		return "tool_use"
	default:
		return "end_turn"
	}
}
