package modeltest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-multierror"
)

// A Server is a scripted model server listening on 127.0.0.1. It is safe
// for concurrent use.
type Server struct {
	script  Script
	cfg     config
	url     string
	host    string // 127.0.0.1:PORT
	http    *http.Server
	closing context.Context // done once Close starts; ends stalls
	stop    context.CancelFunc
	done    chan struct{}  // closed when Serve returns
	active  sync.WaitGroup // requests being answered

	closeOnce sync.Once
	closeErr  error

	mu       sync.Mutex
	reqs     []*Request
	attempts map[int]int    // requests seen per turn index
	fresh    map[string]int // one-shot mode: the turn of each fresh conversation, by its messages
	changed  chan struct{}  // closed and replaced at each new request
}

// An Option configures a Server.
type Option func(*config)

type config struct {
	logf     func(format string, args ...any)
	sideCall func(*Request) bool
	sideText string
	oneShot  bool
	turnOf   func(*Request) int
	addr     string
}

// WithAddr makes the server listen on addr, a loopback host and a port
// ("127.0.0.1:8080"; port 0 is a free port), instead of 127.0.0.1 on a
// free port. A host other than a loopback address is refused: the server
// answers anyone with a script and records what they send.
func WithAddr(addr string) Option {
	return func(c *config) { c.addr = addr }
}

// listenLoopback listens on addr, refusing a host that is not loopback.
func listenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("modeltest: address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("modeltest: address %q: the host must be a loopback address (127.0.0.1, ::1 or localhost)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("modeltest: listen on %s: %w", addr, err)
	}
	return ln, nil
}

// WithOneShotTurns is for clients that make one-shot calls, such as a
// harness model asked one question per CLI run: every request starts a
// fresh conversation, which would always ask for turn 0. With this option
// each conversation, told apart by its first user message, takes the next
// turn of the script in arrival order, and a request of a conversation
// seen before (a CLI's retry) takes that conversation's turn again.
// Combine it with WithSideCalls(nil), since Claude Code's small models
// look like side calls.
func WithOneShotTurns() Option {
	return func(c *config) { c.oneShot = true }
}

// WithTurnOf makes turnOf choose the script turn (from 0) that answers
// each request of the main conversation, from what the request says
// instead of from its history or arrival order: a judge whose answer
// depends on the criteria it is sent, deterministically, whatever order
// the calls come in. A retry carries the same request and gets the same
// turn. It takes precedence over WithOneShotTurns.
func WithTurnOf(turnOf func(r *Request) int) Option {
	return func(c *config) { c.turnOf = turnOf }
}

// WithLogf makes the server log one line per request with logf, e.g.
// t.Logf. Start logs with t.Logf unless this option is given.
func WithLogf(logf func(format string, args ...any)) Option {
	return func(c *config) { c.logf = logf }
}

// WithSideCalls replaces the rule that tells side calls from turns of the
// main conversation. isSide is called with the decoded request, whose Turn
// is not yet set; a request for which it reports true is answered with text
// (see WithSideText) and uses no script turn. nil means no request is a
// side call. The default rule is DefaultSideCall.
func WithSideCalls(isSide func(r *Request) bool) Option {
	return func(c *config) { c.sideCall = isSide }
}

// WithSideText sets the text that answers side calls. The default is "OK".
func WithSideText(text string) Option {
	return func(c *config) { c.sideText = text }
}

// NewServer starts a server for the script on 127.0.0.1, on a free port
// (or on the address WithAddr gives).
// The script is validated first. Call Close when done.
func NewServer(script Script, opts ...Option) (*Server, error) {
	if err := script.Validate(); err != nil {
		return nil, err
	}
	cfg := config{sideCall: DefaultSideCall, sideText: "OK"}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.addr == "" {
		cfg.addr = "127.0.0.1:0"
	}
	ln, err := listenLoopback(cfg.addr)
	if err != nil {
		return nil, err
	}
	closing, stop := context.WithCancel(context.Background())
	s := &Server{
		script:   append(Script(nil), script...),
		cfg:      cfg,
		url:      "http://" + ln.Addr().String(),
		host:     ln.Addr().String(),
		closing:  closing,
		stop:     stop,
		done:     make(chan struct{}),
		attempts: map[int]int{},
		fresh:    map[string]int{},
		changed:  make(chan struct{}),
	}
	s.http = &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.http.Serve(ln)
	}()
	return s, nil
}

// Start starts a server for the script and closes it when the test ends.
// It logs each request with t.Logf (override with WithLogf) and ends the
// test at once if the server cannot start.
func Start(t testing.TB, script Script, opts ...Option) *Server {
	t.Helper()
	s, err := NewServer(script, append([]Option{WithLogf(t.Logf)}, opts...)...)
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("%v", err)
		}
	})
	return s
}

// URL returns the server's base URL, "http://127.0.0.1:PORT". It is
// Claude Code's ANTHROPIC_BASE_URL.
func (s *Server) URL() string { return s.url }

// OpenAIBaseURL returns the base URL of the OpenAI API, URL()+"/v1", which is
// what Codex's model provider base_url and OpenAI clients take.
func (s *Server) OpenAIBaseURL() string { return s.url + "/v1" }

// Close stops the server: it ends stalled streams, then waits for the
// requests in flight. It is safe to call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.stop()
		// Wait for the requests being answered (stalls end with stop), then
		// close every connection at once. http.Server.Shutdown would also
		// wait for connections a client opened but never used, which it
		// treats as busy for their first five seconds.
		answered := make(chan struct{})
		go func() { s.active.Wait(); close(answered) }()
		select {
		case <-answered:
		case <-time.After(5 * time.Second):
			s.closeErr = fmt.Errorf("modeltest: close: requests still being answered after 5s")
		}
		_ = s.http.Close()
		<-s.done
	})
	return s.closeErr
}

// Requests returns a copy of every request received so far, in arrival
// order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.reqs))
	for i, r := range s.reqs {
		out[i] = r.clone()
	}
	return out
}

// TurnRequests returns a copy of the requests of the main conversation
// (KindTurn), in arrival order.
func (s *Server) TurnRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Kind == KindTurn {
			out = append(out, r)
		}
	}
	return out
}

// WaitRequests waits until at least n requests have arrived, then returns
// them as Requests does. It returns ctx's error if ctx ends first.
func (s *Server) WaitRequests(ctx context.Context, n int) ([]Request, error) {
	for {
		s.mu.Lock()
		got, changed := len(s.reqs), s.changed
		s.mu.Unlock()
		if got >= n {
			return s.Requests(), nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("modeltest: waiting for %d requests, got %d: %w", n, got, ctx.Err())
		}
	}
}

// ErrScript is wrapped by Err's errors about requests that the script could
// not answer or could not read.
var ErrScript = errors.New("modeltest: request the script cannot answer")

// Err returns an error listing every request that had a problem: an
// undecodable body, or a turn past the end of the script. It returns nil when
// there was none. Its errors wrap ErrScript.
func (s *Server) Err() error {
	var errs *multierror.Error
	for _, r := range s.Requests() {
		if r.Problem != "" {
			errs = multierror.Append(errs, fmt.Errorf("%w: request %d (%s %s): %s", ErrScript, r.Seq, r.Method, r.Path, r.Problem))
		}
	}
	if errs == nil {
		return nil
	}
	errs.ErrorFormat = listErrors
	return errs
}

// record adds r to the log, numbering it.
func (s *Server) record(r *Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Seq = len(s.reqs)
	s.reqs = append(s.reqs, r)
	close(s.changed)
	s.changed = make(chan struct{})
}

// update changes a recorded request under the lock.
func (s *Server) update(r *Request, change func(r *Request)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	change(r)
}

// attempt counts one more request for the turn and returns the count.
func (s *Server) attempt(turn int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts[turn]++
	return s.attempts[turn]
}

func (s *Server) logf(r *Request) {
	if s.cfg.logf == nil {
		return
	}
	s.mu.Lock()
	target := r.Path
	if r.Kind == KindProxy {
		target = r.Host
	}
	line := fmt.Sprintf("modeltest: #%d %s %s: ", r.Seq, r.Method, target)
	if r.Kind == KindTurn && r.Turn >= 0 {
		line += fmt.Sprintf("turn %d attempt %d", r.Turn, r.Attempt)
	} else {
		line += string(r.Kind)
	}
	line += fmt.Sprintf(" -> %d", r.Status)
	if r.Failure != "" {
		line += " " + r.Failure
	}
	if r.Problem != "" {
		line += " (" + r.Problem + ")"
	}
	s.mu.Unlock()
	s.cfg.logf("%s", line)
}

// DefaultSideCall is the default rule that tells a side call from a turn of
// the main conversation: a model request is a side call when it offers no
// tools and either allows at most one output token (Claude Code's quota
// probe) or asks a model whose name contains "haiku" (Claude Code's small
// model, used for titles and topic detection). Every request from Codex is
// a turn.
func DefaultSideCall(r *Request) bool {
	if r.API != Anthropic || len(r.Tools) > 0 {
		return false
	}
	return r.MaxTokens == 1 || strings.Contains(r.Model, "haiku")
}
