package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
)

// Hostile plugins: a driver, an answerer and an assertion that panic, hang
// (ignoring their context) or hand over values that do not encode as JSON,
// in the method their config names. They play the plugins a user writes
// with a bug in them.

// hang blocks until release is closed: the plugin ignores its context.
var (
	hangMu      sync.Mutex
	hangRelease = make(chan struct{})
	// hung receives a value each time a plugin call starts hanging.
	hung = make(chan struct{}, 16)
)

func hangForever() {
	hangMu.Lock()
	ch, started := hangRelease, hung
	hangMu.Unlock()
	select {
	case started <- struct{}{}:
	default:
	}
	<-ch
}

// drainHung forgets the hangs signalled so far.
func drainHung() {
	for {
		select {
		case <-hung:
		default:
			return
		}
	}
}

// hangInBubble runs f in a testing/synctest bubble whose hangs are the
// bubble's own: a hung call blocks on a channel made in the bubble, so the
// bubble's clock moves on only once every goroutine of the run is blocked
// — the guard abandons a hung call exactly CleanupTimeout after its
// context ends, and every well-behaved call takes no time on that clock,
// however loaded the machine is. The hangs are released when f returns,
// so that the bubble's goroutines end.
func hangInBubble(t *testing.T, f func(t *testing.T)) {
	synctest.Test(t, func(t *testing.T) {
		hangMu.Lock()
		prevRelease, prevHung := hangRelease, hung
		hangRelease, hung = make(chan struct{}), make(chan struct{}, 16)
		release := hangRelease
		hangMu.Unlock()
		defer func() {
			close(release)
			hangMu.Lock()
			hangRelease, hung = prevRelease, prevHung
			hangMu.Unlock()
		}()
		f(t)
	})
}

// releaseHangs lets every hung plugin call return (at the end of a test).
func releaseHangs(t testing.TB) {
	drainHung()
	t.Cleanup(func() {
		hangMu.Lock()
		close(hangRelease)
		hangRelease = make(chan struct{})
		hangMu.Unlock()
	})
}

type hostileConfig struct {
	// Panic and Hang name a method: parse, runtime, start, next, respond,
	// quiesce, collect, close.
	Panic string `json:"panic,omitempty"`
	Hang  string `json:"hang,omitempty"`
	// Ask sends an ask interrupt (id q1) after ready.
	Ask bool `json:"ask,omitempty"`
	// Bad puts a value that does not encode as JSON into the event named:
	// ready, progress, interrupt, done.
	Bad string `json:"bad,omitempty"`
}

var hostileDriver = &lux.DriverPlugin{
	Name: "hostile",
	Doc:  "misbehaves as its config says",
	Parse: func(raw json.RawMessage) (lux.DriverConfig, error) {
		cfg := &hostileConfig{}
		if err := lux.DecodeConfig(raw, cfg); err != nil {
			return nil, err
		}
		if cfg.Panic == "parse" {
			panic("hostile driver: parse")
		}
		return cfg, nil
	},
}

func (c *hostileConfig) act(method string) {
	if c.Panic == method {
		panic("hostile driver: " + method)
	}
	if c.Hang == method {
		hangForever()
	}
}

func (c *hostileConfig) Runtime() lux.Runtime {
	c.act("runtime")
	return lux.Runtime{Capabilities: []lux.Capability{lux.CanAsk}}
}

func (c *hostileConfig) Start(ctx context.Context, info lux.StartInfo) (lux.Session, error) {
	c.act("start")
	ready := lux.Event{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "hostile"}}
	msg := lux.NewProgress("m1", lux.KindAgentMessage, &lux.Message{Text: "working"})
	progress := lux.Event{Type: lux.EventProgress, Progress: &msg}
	done := lux.Event{Type: lux.EventDone, Done: &lux.Done{}}
	in := lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "Which color?"}
	unencodable := make(chan int)
	switch c.Bad {
	case "ready":
		ready.Ready.Detail = map[string]any{"ch": unencodable}
	case "progress":
		progress.Progress = &lux.Progress{ID: "m1", Kind: "custom-kind", Payload: json.RawMessage("{not json")}
	case "interrupt":
		in.Context = unencodable
	case "done":
		done.Done.Summary = unencodable
	}
	events := []lux.Event{ready, progress}
	if c.Ask || c.Bad == "interrupt" {
		events = append(events, lux.Event{Type: lux.EventInterrupt, Interrupt: &in})
	}
	events = append(events, done)
	return &hostileSession{cfg: c, events: events}, nil
}

type hostileSession struct {
	cfg    *hostileConfig
	events []lux.Event
	next   int
}

func (s *hostileSession) Next(ctx context.Context) (lux.Event, error) {
	if s.next >= 1 { // after ready
		s.cfg.act("next")
	}
	if s.next >= len(s.events) {
		return lux.Event{}, io.EOF
	}
	e := s.events[s.next]
	s.next++
	return e, nil
}

func (s *hostileSession) Respond(ctx context.Context, a lux.Answer) error {
	s.cfg.act("respond")
	return nil
}

func (s *hostileSession) Quiesce(ctx context.Context) error {
	s.cfg.act("quiesce")
	return nil
}

func (s *hostileSession) Collect(ctx context.Context) ([]lux.Artifact, error) {
	s.cfg.act("collect")
	return nil, nil
}

func (s *hostileSession) Close() error {
	s.cfg.act("close")
	return nil
}

// hostileAnswererConfig answers every ask with "blue" unless told to
// panic or hang in one of its methods: parse, prepare, answer, usage, close.
// Bad makes its answer's payload a value that does not encode as JSON.
type hostileAnswererConfig struct {
	Panic string `json:"panic,omitempty"`
	Hang  string `json:"hang,omitempty"`
	Bad   bool   `json:"bad,omitempty"`
}

var hostileAnswerer = &lux.AnswererPlugin{
	Name: "hostile",
	Doc:  "misbehaves as its config says",
	Parse: func(raw json.RawMessage) (lux.AnswererConfig, error) {
		cfg := &hostileAnswererConfig{}
		if err := lux.DecodeConfig(raw, cfg); err != nil {
			return nil, err
		}
		if cfg.Panic == "parse" {
			panic("hostile answerer: parse")
		}
		return cfg, nil
	},
}

func (c *hostileAnswererConfig) act(method string) {
	if c.Panic == method {
		panic("hostile answerer: " + method)
	}
	if c.Hang == method {
		hangForever()
	}
}

func (c *hostileAnswererConfig) Prepare(ctx context.Context, info lux.AnswererInfo) (lux.Answerer, error) {
	c.act("prepare")
	return c, nil
}

func (c *hostileAnswererConfig) Answer(ctx context.Context, in lux.Interrupt, _ []lux.Exchange) (lux.Answer, error) {
	c.act("answer")
	a := lux.Answer{Kind: in.Kind, ID: in.ID, Text: "blue"}
	if c.Bad {
		a.Payload = make(chan int)
	}
	return a, nil
}

func (c *hostileAnswererConfig) Usage() lux.ModelUsage {
	c.act("usage")
	return lux.ModelUsage{TokenUsage: lux.TokenUsage{Input: 1}}
}

func (c *hostileAnswererConfig) Close() error {
	c.act("close")
	return nil
}

// hostileAssertion panics, hangs or returns a detail that does not encode
// as JSON, as its config says: {"do": "panic"|"hang"|"bad-detail"|"parse-panic"}.
var hostileAssertion = &lux.AssertionPlugin{
	Type: "hostile", Version: "1", Doc: "misbehaves as its config says",
	Parse: func(raw json.RawMessage) (lux.Check, error) {
		var cfg struct {
			Do string `json:"do"`
		}
		if err := lux.DecodeConfig(raw, &cfg); err != nil {
			return nil, err
		}
		if cfg.Do == "parse-panic" {
			panic("hostile assertion: parse")
		}
		return assertion.CheckFunc(func(ctx context.Context, run *lux.Run) (lux.Result, error) {
			switch cfg.Do {
			case "panic":
				panic("hostile assertion: evaluate")
			case "hang":
				hangForever()
			case "bad-detail":
				return assertion.Pass("ok", map[string]any{"ch": make(chan int)}), nil
			}
			return assertion.Pass("ok", nil), nil
		}), nil
	},
}

func hostileRegistry(t testing.TB) *lux.Registry {
	t.Helper()
	reg := testRegistry(t)
	for _, err := range []error{
		reg.RegisterDriver(hostileDriver), reg.RegisterAnswerer(hostileAnswerer), reg.RegisterAssertion(hostileAssertion),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

func hostileCase(id string, driver map[string]any, answerer map[string]any) *lux.Case {
	c := &lux.Case{ID: id, Prompt: "p", Driver: &lux.PluginRef{Name: "hostile", Config: driver},
		Assertions: []lux.AssertionSpec{{Type: "fixed", Config: map[string]any{"score": 1, "passed": true}}}}
	if answerer != nil {
		c.Answerer = &lux.PluginRef{Name: "hostile", Config: answerer}
	}
	return c
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprint(err)
}

var _ = errors.New
