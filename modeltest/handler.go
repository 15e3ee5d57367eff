package modeltest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// maxBody bounds the request bodies the server reads.
const maxBody = 64 << 20

// A dialect writes the answers of one API.
type dialect interface {
	events(t Turn, key string) []event
	message(t Turn, key string) any
	errorType(status int) string
	errorBody(typ, message string) any
	streamError(key, typ, message string, sent int) event
}

type anthropicDialect struct{ model string }

func (d anthropicDialect) events(t Turn, key string) []event {
	return anthropicEvents(t, key, d.model)
}
func (d anthropicDialect) message(t Turn, key string) any {
	return anthropicMessageJSON(t, key, d.model)
}
func (anthropicDialect) errorType(status int) string       { return anthropicErrorType(status) }
func (anthropicDialect) errorBody(typ, message string) any { return anthropicError(typ, message) }
func (anthropicDialect) streamError(_, typ, message string, _ int) event {
	return event{"error", anthropicError(typ, message)}
}

type openaiDialect struct {
	model  string
	custom map[string]bool
}

func (d openaiDialect) events(t Turn, key string) []event {
	return openaiEvents(t, key, d.model, d.custom)
}
func (d openaiDialect) message(t Turn, key string) any {
	return openaiResponse(key, d.model, "completed", openaiOutput(t, key, d.custom), openaiUsage(t.Usage))
}
func (openaiDialect) errorType(status int) string       { return openaiErrorType(status) }
func (openaiDialect) errorBody(typ, message string) any { return openaiError(typ, message) }
func (d openaiDialect) streamError(key, typ, message string, sent int) event {
	ev := openaiFailed(key, d.model, typ, message)
	ev.data.(map[string]any)["sequence_number"] = sent
	return ev
}

// ServeHTTP answers one request and records it.
func (s *Server) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	s.active.Add(1)
	defer s.active.Done()
	r := &Request{
		Method: hr.Method, Path: hr.URL.Path, Query: hr.URL.RawQuery, Host: hr.Host,
		Header: hr.Header.Clone(), Turn: -1,
	}
	body, err := readBody(hr)
	r.Body = body
	path := strings.TrimSuffix(hr.URL.Path, "/")
	post := hr.Method == http.MethodPost
	switch {
	case hr.Method == http.MethodConnect || (hr.URL.IsAbs() && hr.URL.Host != s.host):
		r.Kind = KindProxy
	case post && strings.HasSuffix(path, "/v1/messages/count_tokens"):
		r.API, r.Kind = Anthropic, KindCountTokens
	case post && strings.HasSuffix(path, "/v1/messages"):
		r.API, r.Kind = Anthropic, KindTurn
	case post && strings.HasSuffix(path, "/responses"):
		r.API, r.Kind = OpenAI, KindTurn
	case hr.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
		r.API, r.Kind = OpenAI, KindModels
		if hr.Header.Get("anthropic-version") != "" || hr.Header.Get("x-api-key") != "" {
			r.API = Anthropic
		}
	default:
		r.Kind = KindUnknown
		if hr.Header.Get("anthropic-version") != "" {
			r.API = Anthropic
		}
	}
	var d dialect = openaiDialect{}
	if r.API == Anthropic {
		d = anthropicDialect{}
	}
	if err != nil {
		r.Problem = err.Error()
		s.record(r)
		s.fail(w, r, d, http.StatusBadRequest, err.Error())
		return
	}

	switch r.Kind {
	case KindProxy:
		s.record(r)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		s.update(r, func(r *Request) { r.Status = http.StatusForbidden })
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, "modeltest: the model server is no proxy\n")
		s.logf(r)
	case KindUnknown:
		s.record(r)
		s.fail(w, r, d, http.StatusNotFound, fmt.Sprintf("modeltest: no endpoint %s %s", hr.Method, hr.URL.Path))
	case KindModels:
		s.record(r)
		s.respond(w, r, http.StatusOK, modelList(r.API))
	case KindCountTokens:
		_, err := decodeAnthropic(r)
		if err != nil {
			r.Problem = err.Error()
		}
		s.record(r)
		s.respond(w, r, http.StatusOK, map[string]any{"input_tokens": len(r.Body)/4 + 1})
	case KindTurn:
		s.serveModel(w, hr, r)
	}
}

// serveModel answers a Messages or Responses request with a side call's
// text or the script turn it asks for.
func (s *Server) serveModel(w http.ResponseWriter, hr *http.Request, r *Request) {
	var (
		turn int
		err  error
		d    dialect
	)
	if r.API == Anthropic {
		turn, err = decodeAnthropic(r)
		d = anthropicDialect{model: r.Model}
	} else {
		var custom map[string]bool
		turn, custom, err = decodeOpenAI(r)
		d = openaiDialect{model: r.Model, custom: custom}
	}
	if err != nil {
		r.Problem = err.Error()
		s.record(r)
		s.fail(w, r, d, http.StatusBadRequest, err.Error())
		return
	}
	if s.cfg.sideCall != nil && s.cfg.sideCall(r) {
		r.Kind = KindSideCall
		s.record(r)
		s.answer(w, hr, r, d, Turn{Text: s.cfg.sideText}, "side_"+strconv.Itoa(r.Seq), nil)
		return
	}
	switch {
	case s.cfg.turnOf != nil:
		turn = s.cfg.turnOf(r)
	case s.cfg.oneShot:
		turn = s.oneShotTurn(r, turn)
	}
	r.Turn = turn
	if turn < 0 || turn >= len(s.script) {
		r.Problem = fmt.Sprintf("the request asks for turn %d (from 0) but the script has %d turns", turn, len(s.script))
		s.record(r)
		s.fail(w, r, d, http.StatusBadRequest, "modeltest: "+r.Problem)
		return
	}
	r.Attempt = s.attempt(turn)
	t := s.script[turn]
	var f *Failure
	if t.Fail != nil && (t.Fail.Times == 0 || r.Attempt <= t.Fail.Times) {
		f = t.Fail
	}
	s.record(r)
	s.answer(w, hr, r, d, t, strconv.Itoa(turn), f)
}

// oneShotTurn is the turn of a request in one-shot mode: a conversation
// is identified by its first user message, and the first request of each
// new one takes the next turn.
func (s *Server) oneShotTurn(r *Request, turn int) int {
	key := ""
	for _, m := range r.Messages {
		if m.Role == "user" {
			b, _ := json.Marshal(m.Content)
			key = string(b)
			break
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	start, seen := s.fresh[key]
	if !seen {
		start = len(s.fresh)
		s.fresh[key] = start
	}
	return start + turn
}

// answer writes a turn, streamed or not, with the failure f, if any.
func (s *Server) answer(w http.ResponseWriter, hr *http.Request, r *Request, d dialect, t Turn, key string, f *Failure) {
	ctx, cancel := mergeDone(hr.Context(), s.closing)
	defer cancel()
	if t.Hold != nil {
		if t.Held != nil {
			select {
			case t.Held <- struct{}{}:
			default:
			}
		}
		select {
		case <-t.Hold:
		case <-ctx.Done():
			s.logf(r)
			return
		}
	}
	if f != nil {
		s.update(r, func(r *Request) { r.Failure = describe(f, r.Stream) })
	}
	errorText := func(status int) (string, string) {
		typ, msg := f.Type, f.Message
		if typ == "" {
			typ = d.errorType(status)
		}
		if msg == "" {
			msg = fmt.Sprintf("modeltest: injected %s", describe(f, r.Stream))
		}
		return typ, msg
	}
	switch {
	case f != nil && f.Status != 0:
		for k, v := range f.Header {
			w.Header().Set(k, v)
		}
		if f.Body != "" {
			s.respondRaw(w, r, f.Status, []byte(f.Body))
			return
		}
		typ, msg := errorText(f.Status)
		s.respond(w, r, f.Status, d.errorBody(typ, msg))
	case f != nil && f.Stall && !r.Stream:
		s.logf(r)
		<-ctx.Done()
	case f != nil && f.Drop && !r.Stream:
		s.logf(r)
		panic(http.ErrAbortHandler)
	case f != nil && f.Cut && !r.Stream:
		body, _ := json.Marshal(d.message(t, key))
		s.respondRaw(w, r, http.StatusOK, body[:len(body)/2])
	case f != nil && f.StreamError && !r.Stream:
		typ, msg := errorText(http.StatusInternalServerError)
		s.respond(w, r, http.StatusInternalServerError, d.errorBody(typ, msg))
	case !r.Stream:
		s.respond(w, r, http.StatusOK, d.message(t, key))
	default:
		s.update(r, func(r *Request) { r.Status = http.StatusOK })
		drop := writeStream(ctx, w, d.events(t, key), f, func(sent int) event {
			typ, msg := errorText(http.StatusInternalServerError)
			return d.streamError(key, typ, msg, sent)
		})
		s.logf(r)
		if drop {
			panic(http.ErrAbortHandler)
		}
	}
}

// describe says what failure f does to a request.
func describe(f *Failure, stream bool) string {
	switch {
	case f.Status != 0:
		return fmt.Sprintf("status %d", f.Status)
	case !stream && f.StreamError:
		return "status 500"
	case !stream:
		return map[bool]string{f.Cut: "cut", f.Drop: "drop", f.Stall: "stall"}[true]
	case f.Cut:
		return fmt.Sprintf("cut after %d events", f.After)
	case f.Drop:
		return fmt.Sprintf("drop after %d events", f.After)
	case f.Stall:
		return fmt.Sprintf("stall after %d events", f.After)
	}
	return fmt.Sprintf("stream error after %d events", f.After)
}

// fail answers with an error body of the request's API.
func (s *Server) fail(w http.ResponseWriter, r *Request, d dialect, status int, message string) {
	s.respond(w, r, status, d.errorBody(d.errorType(status), message))
}

// respond writes a JSON answer and logs the request.
func (s *Server) respond(w http.ResponseWriter, r *Request, status int, v any) {
	s.update(r, func(r *Request) { r.Status = status })
	if r.API == Anthropic {
		w.Header().Set("request-id", fmt.Sprintf("req_modeltest_%d", r.Seq))
	}
	writeJSON(w, status, v)
	s.logf(r)
}

// respondRaw writes a JSON answer given as bytes and logs the request.
func (s *Server) respondRaw(w http.ResponseWriter, r *Request, status int, body []byte) {
	s.update(r, func(r *Request) { r.Status = status })
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
	s.logf(r)
}

// readBody reads a request body, undoing a gzip content encoding.
func readBody(hr *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(hr.Body, maxBody+1))
	if err != nil {
		return body, fmt.Errorf("modeltest: read body: %v", err)
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("modeltest: body larger than %d bytes", maxBody)
	}
	switch enc := hr.Header.Get("Content-Encoding"); enc {
	case "", "identity":
		return body, nil
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return body, fmt.Errorf("modeltest: gzip body: %v", err)
		}
		plain, err := io.ReadAll(io.LimitReader(zr, maxBody))
		if err != nil {
			return body, fmt.Errorf("modeltest: gzip body: %v", err)
		}
		return plain, nil
	default:
		return body, fmt.Errorf("modeltest: unsupported content-encoding %q", enc)
	}
}

// modelList answers a model list request in the API's shape.
func modelList(api API) any {
	if api == Anthropic {
		return map[string]any{
			"data": []any{map[string]any{
				"type": "model", "id": "modeltest", "display_name": "modeltest",
				"created_at": "2025-01-01T00:00:00Z",
			}},
			"has_more": false, "first_id": "modeltest", "last_id": "modeltest",
		}
	}
	return map[string]any{
		"object": "list",
		"data":   []any{map[string]any{"id": "modeltest", "object": "model", "created": 0, "owned_by": "modeltest"}},
	}
}
