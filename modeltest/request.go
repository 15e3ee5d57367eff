package modeltest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// API names the vendor API a request was addressed to.
type API string

// The APIs the server speaks.
const (
	Anthropic API = "anthropic" // Anthropic Messages API
	OpenAI    API = "openai"    // OpenAI Responses API
)

// Kind says how the server classified a request.
type Kind string

// The kinds of request.
const (
	// KindTurn is a request of the main conversation; it is answered with a
	// script turn.
	KindTurn Kind = "turn"
	// KindSideCall is a model request outside the main conversation (e.g. a
	// quota probe or a title generation); it is answered with a short text
	// and does not use a script turn. See WithSideCalls.
	KindSideCall Kind = "side_call"
	// KindCountTokens is an Anthropic count_tokens request.
	KindCountTokens Kind = "count_tokens"
	// KindModels is a model list request (GET .../models).
	KindModels Kind = "models"
	// KindProxy is a request that treats the server as an HTTP proxy: a
	// CONNECT, or a request for an absolute URL of another host. It is
	// refused with 403. See Server.ProxyEnv.
	KindProxy Kind = "proxy"
	// KindUnknown is any other request; it is answered with 404.
	KindUnknown Kind = "unknown"
)

// A Request is one request the server received, as recorded.
type Request struct {
	// Seq is the request's position in arrival order, from 0.
	Seq int
	// Method, Path and Query are the request line's; Path keeps any base
	// path prefix.
	Method, Path, Query string
	// Host is the Host header, or for a proxy CONNECT request the address
	// the client asked to reach.
	Host string
	// Header holds the request headers.
	Header http.Header
	// Body is the request body as received.
	Body []byte

	// API is the API the request was addressed to; empty for an unknown
	// endpoint.
	API API
	// Kind says how the server classified the request.
	Kind Kind
	// Stream reports whether the request asked for a streamed response.
	Stream bool
	// Model is the requested model.
	Model string
	// MaxTokens is the output token limit asked for (Anthropic max_tokens,
	// OpenAI max_output_tokens); 0 when not given.
	MaxTokens int
	// System is the system prompt: Anthropic's system field, or OpenAI's
	// instructions followed by the text of system and developer messages of
	// the input, joined by newlines.
	System string
	// Messages is the conversation history, in a form common to both APIs.
	Messages []Message
	// Tools are the names of the tools offered, in order. A tool without a
	// name (e.g. OpenAI's web_search) is listed by its type.
	Tools []string

	// Turn is the index of the script turn the request asked for, or -1
	// when the request is not of KindTurn.
	Turn int
	// Attempt counts the requests for the same turn, from 1; a retry has
	// Attempt 2 and up. 0 when Turn is -1.
	Attempt int
	// Status is the HTTP status of the answer; 0 while the answer is still
	// being written or when the connection was cut before any answer.
	Status int
	// Failure describes the failure injected into the answer ("status 500",
	// "cut after 2 events", ...), or is empty.
	Failure string
	// Problem describes what was wrong with the request, if anything: an
	// undecodable body, or a turn past the end of the script.
	Problem string
}

// A Message is one entry of a request's conversation history.
//
// Anthropic messages map one to one. An OpenAI input item maps to one
// Message: a message item keeps its role ("user", "assistant", "developer",
// "system"); a function_call or custom_tool_call becomes an "assistant"
// Message with one "tool_call" Content; a reasoning item an "assistant"
// Message with one "thinking" Content; and a *_call_output item a "tool"
// Message with one "tool_result" Content.
type Message struct {
	Role    string
	Content []Content
}

// Content is one part of a Message.
type Content struct {
	// Type is "text", "thinking", "tool_call", "tool_result", or the
	// vendor's type for anything else (e.g. "image").
	Type string
	// Text is the text of a "text" or "thinking" part, or the content of a
	// "tool_result" flattened to text.
	Text string
	// Name is the tool's name of a "tool_call", and of a "tool_result" whose
	// call is in the same history.
	Name string
	// CallID is the call's id of a "tool_call" or "tool_result".
	CallID string
	// Input is the input of a "tool_call": its JSON, or for a custom
	// (freeform) tool call the raw input encoded as a JSON string.
	Input json.RawMessage
	// IsError reports a "tool_result" that the client marked as an error.
	IsError bool
}

// ToolResults returns the tool results the request sends back to the
// model, in history order.
func (r Request) ToolResults() []Content {
	return r.contents("tool_result")
}

// ToolCalls returns the tool calls in the request's history, in order.
func (r Request) ToolCalls() []Content {
	return r.contents("tool_call")
}

// ToolResult returns the last tool result in the request's history for a
// call to the named tool, and whether there is one.
func (r Request) ToolResult(name string) (Content, bool) {
	results := r.ToolResults()
	for i := len(results) - 1; i >= 0; i-- {
		if results[i].Name == name {
			return results[i], true
		}
	}
	return Content{}, false
}

// UserText returns the text of every "user" message of the history, in
// order, joined by newlines. Tool results are not included.
func (r Request) UserText() string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role != "user" {
			continue
		}
		for _, c := range m.Content {
			if c.Type == "text" {
				parts = append(parts, c.Text)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// LastUserText returns the text of the last "user" message that has text,
// joined by newlines.
func (r Request) LastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "user" {
			continue
		}
		var parts []string
		for _, c := range m.Content {
			if c.Type == "text" {
				parts = append(parts, c.Text)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "\n")
		}
	}
	return ""
}

// HasTool reports whether the request offers the named tool.
func (r Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t == name {
			return true
		}
	}
	return false
}

func (r Request) contents(typ string) []Content {
	var out []Content
	for _, m := range r.Messages {
		for _, c := range m.Content {
			if c.Type == typ {
				out = append(out, c)
			}
		}
	}
	return out
}

// nameToolResults fills in the Name of each tool result from the call with
// the same id earlier in the history.
func nameToolResults(msgs []Message) {
	names := map[string]string{}
	for _, m := range msgs {
		for i := range m.Content {
			c := &m.Content[i]
			switch c.Type {
			case "tool_call":
				names[c.CallID] = c.Name
			case "tool_result":
				if c.Name == "" {
					c.Name = names[c.CallID]
				}
			}
		}
	}
}

// clone returns a deep copy of r, so that callers cannot change the log.
func (r *Request) clone() Request {
	c := *r
	c.Header = r.Header.Clone()
	c.Body = append([]byte(nil), r.Body...)
	c.Tools = append([]string(nil), r.Tools...)
	c.Messages = make([]Message, len(r.Messages))
	for i, m := range r.Messages {
		c.Messages[i] = Message{Role: m.Role, Content: append([]Content(nil), m.Content...)}
	}
	return c
}
