package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Tokens are the model tokens the harness counted in the responses its
// forwarded endpoints carried (see Info.Metered).
type Tokens struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheRead     int64 `json:"cacheRead"`
	CacheCreation int64 `json:"cacheCreation"`
	// Responses is how many responses held a usage object.
	Responses int `json:"responses"`
}

// MeterMethod names how Info.Metered is measured.
const MeterMethod = "sandbox-proxy: the usage objects of the plain-HTTP model responses (Anthropic Messages, OpenAI Responses and Chat Completions, streamed or not) the run's forwarded endpoints and HTTP proxy carried; HTTPS is not counted"

// meter counts the tokens of a run's model responses.
type meter struct {
	mu   sync.Mutex
	t    Tokens
	seen bool
	// counted is called with the totals after each response counted.
	counted func(Tokens)
	// reading are the streams being read.
	reading sync.WaitGroup
}

// wait waits until the streams being read are done, at most d: a
// response's usage is counted at its end, just after the agent read it.
func (m *meter) wait(d time.Duration) {
	done := make(chan struct{})
	go func() { m.reading.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}

// body counts the usage of a response whose body is read from the
// returned reader, as it is read; close the reader's source's end (pw)
// when done.
func (m *meter) body(h http.Header) (pw *io.PipeWriter) {
	pr, pw := io.Pipe()
	m.reading.Add(1)
	go func() {
		defer m.reading.Done()
		if u, ok := usageIn(&http.Response{Header: h, Body: pr}); ok {
			m.add(u)
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	return pw
}

// watch returns a writer to give the bytes of a connection's responses
// to, as the agent receives them; close it at the end of the connection.
// A stream that is not HTTP/1.1 (TLS, a protocol switched to) is read
// and ignored.
func (m *meter) watch() io.WriteCloser {
	r, w := io.Pipe()
	m.reading.Add(1)
	go func() {
		defer m.reading.Done()
		defer r.Close()
		br := bufio.NewReader(r)
		for {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				break
			}
			u, ok := usageIn(resp)
			resp.Body.Close()
			if ok {
				m.add(u)
			}
			if resp.StatusCode == http.StatusSwitchingProtocols {
				break
			}
		}
		_, _ = io.Copy(io.Discard, br)
	}()
	return w
}

func (m *meter) add(u Tokens) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen = true
	m.t.Input += u.Input
	m.t.Output += u.Output
	m.t.CacheRead += u.CacheRead
	m.t.CacheCreation += u.CacheCreation
	m.t.Responses++
	if m.counted != nil {
		m.counted(m.t)
	}
}

// usage is a usage object of Anthropic's or OpenAI's APIs.
type usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	InputTokensDetails       struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// tokens maps u as the drivers do: Input excludes what was read from or
// written to the cache.
func (u usage) tokens() Tokens {
	if u.PromptTokens > 0 || u.CompletionTokens > 0 {
		return Tokens{Input: max(0, u.PromptTokens-u.PromptTokensDetails.CachedTokens), Output: u.CompletionTokens, CacheRead: u.PromptTokensDetails.CachedTokens}
	}
	if c := u.InputTokensDetails.CachedTokens; c > 0 {
		return Tokens{Input: max(0, u.InputTokens-c), Output: u.OutputTokens, CacheRead: c}
	}
	return Tokens{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadInputTokens, CacheCreation: u.CacheCreationInputTokens}
}

// holder is where a usage object sits in a response or a streamed event:
// at the top (a response, Anthropic's message_delta, a chat completion
// chunk), in message (Anthropic's message_start) or in response (OpenAI's
// response.completed).
type holder struct {
	Usage   *usage `json:"usage"`
	Message *struct {
		Usage *usage `json:"usage"`
	} `json:"message"`
	Response *struct {
		Usage *usage `json:"usage"`
	} `json:"response"`
}

func (h holder) usage() *usage {
	switch {
	case h.Usage != nil:
		return h.Usage
	case h.Message != nil && h.Message.Usage != nil:
		return h.Message.Usage
	case h.Response != nil && h.Response.Usage != nil:
		return h.Response.Usage
	}
	return nil
}

// maxBody bounds a non-streamed response body the meter decodes.
const maxBody = 8 << 20

// usageIn reads resp's body for its usage: a JSON body's, or, in an event
// stream, each field's last value (Anthropic's message_delta carries the
// final output count, its message_start the input counts).
func usageIn(resp *http.Response) (Tokens, bool) {
	ct := resp.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "text/event-stream") {
		var t Tokens
		found := false
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), maxBody)
		for sc.Scan() {
			line, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:"))
			if !ok || !bytes.Contains(line, []byte(`"usage"`)) {
				continue
			}
			var h holder
			if json.Unmarshal(bytes.TrimSpace(line), &h) != nil || h.usage() == nil {
				continue
			}
			found = true
			u := h.usage().tokens()
			for _, f := range []struct {
				dst *int64
				v   int64
			}{{&t.Input, u.Input}, {&t.Output, u.Output}, {&t.CacheRead, u.CacheRead}, {&t.CacheCreation, u.CacheCreation}} {
				if f.v > 0 {
					*f.dst = f.v
				}
			}
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return t, found
	}
	if !strings.Contains(ct, "json") {
		_, _ = io.Copy(io.Discard, resp.Body)
		return Tokens{}, false
	}
	var h holder
	err := json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(&h)
	_, _ = io.Copy(io.Discard, resp.Body)
	if err != nil || h.usage() == nil {
		return Tokens{}, false
	}
	return h.usage().tokens(), true
}
