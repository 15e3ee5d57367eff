package luxtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/luxeval/lux"
)

// fakeDriver is an in-process driver whose config names the ways it
// breaks its contract, so the tests can show the conformance suite
// catching each. Without breaks it conforms. The plugin's own breaks
// apply to every config: "lax-parse" makes Parse accept anything.
func fakeDriver(breaks ...string) *lux.DriverPlugin {
	lax := slices.Contains(breaks, "lax-parse")
	return &lux.DriverPlugin{
		Name: "fake",
		Doc:  "an in-process agent that answers from a fixed script",
		Parse: func(raw json.RawMessage) (lux.DriverConfig, error) {
			c := &fakeConfig{}
			if lax {
				_ = json.Unmarshal(raw, c) // ignores unknown fields, and every error
				return c, nil
			}
			if err := lux.DecodeConfig(raw, c); err != nil {
				return nil, err
			}
			return c, nil
		},
		Experiment: &lux.DriverExperiment{
			Version: "1",
			Prepare: func(dc lux.DriverConfig) (lux.DriverConfig, error) {
				c := dc.(*fakeConfig)
				if c.has("prepare-mutates") {
					c.Controlled = true
					return c, nil
				}
				out := *c
				out.Controlled = true
				return &out, nil
			},
			Identity: func(ctx context.Context, dc lux.DriverConfig, root string) (any, error) {
				c := dc.(*fakeConfig)
				if c.has("unstable-identity") {
					return map[string]int64{"n": fakeCalls.Add(1)}, nil
				}
				return map[string]string{"agent": "fake 1.0"}, nil
			},
		},
	}
}

var fakeCalls atomic.Int64

type fakeConfig struct {
	Breaks     []string `json:"breaks,omitempty"`
	Ask        bool     `json:"ask,omitempty"` // raise one ask interrupt
	Controlled bool     `json:"controlled,omitempty"`
}

func (c *fakeConfig) has(brk string) bool { return slices.Contains(c.Breaks, brk) }

// MarshalJSON fails under the break "unencodable".
func (c *fakeConfig) MarshalJSON() ([]byte, error) {
	if c.has("unencodable") {
		return nil, errors.New("fake: cannot encode")
	}
	type plain fakeConfig
	return json.Marshal((*plain)(c))
}

func (c *fakeConfig) Runtime() lux.Runtime {
	rt := lux.Runtime{Commands: []string{"fake-agent"}, Capabilities: []lux.Capability{lux.CanAsk}}
	if c.has("undeclared-ask") {
		rt.Capabilities = nil
	}
	if c.has("no-commands") {
		rt.Commands = nil
	}
	if c.has("unstable-runtime") {
		rt.Model = fmt.Sprint("model-", fakeCalls.Add(1))
	}
	return rt
}

func (c *fakeConfig) Start(ctx context.Context, info lux.StartInfo) (lux.Session, error) {
	if c.has("start-fails") {
		return nil, errors.New("fake: cannot start")
	}
	s := &fakeSession{cfg: c, workspace: info.Workspace, closed: make(chan struct{})}
	ready := lux.Event{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "fake"}}
	msg := lux.Event{Type: lux.EventProgress, Progress: &lux.Progress{ID: "m1", Kind: lux.KindAgentMessage, Message: &lux.Message{Text: "on it"}}}
	done := lux.Event{Type: lux.EventDone, Done: &lux.Done{}}
	switch {
	case c.has("done-before-ready"):
		s.events = []lux.Event{msg, done}
	default:
		s.events = []lux.Event{ready, msg}
	}
	if c.Ask && !c.has("done-before-ready") {
		in := &lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "Proceed?"}
		if c.has("malformed") {
			in.ID = ""
		}
		s.events = append(s.events, lux.Event{Type: lux.EventInterrupt, Interrupt: in})
	}
	if c.has("lifecycle") {
		s.events = append(s.events, lux.Event{Type: lux.EventLifecycle, Stage: lux.StageClose})
	}
	if !c.has("done-before-ready") {
		s.events = append(s.events, done)
	}
	if c.has("two-terminal") {
		s.events = append(s.events, lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: "late failure"}})
	}
	if c.has("no-terminal") {
		s.events = s.events[:len(s.events)-1]
	}
	if err := os.WriteFile(filepath.Join(info.Workspace, "out.txt"), []byte("done\n"), 0o644); err != nil {
		return nil, err
	}
	return s, nil
}

type fakeSession struct {
	cfg       *fakeConfig
	workspace string

	mu       sync.Mutex
	events   []lux.Event
	next     int
	quiesced int
	closed   chan struct{} // closed by Close; releases a hung Next
	once     sync.Once
}

func (s *fakeSession) Next(ctx context.Context) (lux.Event, error) {
	if s.cfg.has("panic-next") {
		panic("fake: Next broke")
	}
	if !s.cfg.has("ignore-cancel") {
		if err := ctx.Err(); err != nil {
			return lux.Event{}, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next < len(s.events) {
		s.next++
		return s.events[s.next-1], nil
	}
	if s.cfg.has("hang-next") {
		// Ignores its deadline until the session is closed.
		s.mu.Unlock()
		tellBlocked(ctx)
		<-s.closed
		s.mu.Lock()
		return lux.Event{}, io.EOF
	}
	if s.cfg.has("no-eof") {
		s.mu.Unlock()
		tellBlocked(ctx)
		<-ctx.Done()
		s.mu.Lock()
		return lux.Event{}, ctx.Err()
	}
	return lux.Event{}, io.EOF
}

func (s *fakeSession) Respond(ctx context.Context, a lux.Answer) error {
	if s.cfg.has("respond-fails") {
		return errors.New("fake: the agent's stdin is closed")
	}
	if s.cfg.has("lose-answer") {
		s.mu.Lock()
		s.events = append(s.events[:s.next], lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitIdleTimeout, Reason: "no event for 2m0s"}})
		s.mu.Unlock()
	}
	return nil
}

func (s *fakeSession) Quiesce(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.quiesced++
	if s.quiesced > 1 && s.cfg.has("quiesce-once") {
		return errors.New("fake: already stopped")
	}
	return nil
}

func (s *fakeSession) Collect(ctx context.Context) ([]lux.Artifact, error) {
	entries, err := os.ReadDir(s.workspace)
	if err != nil {
		return nil, err
	}
	var out []lux.Artifact
	for _, e := range entries {
		if !e.Type().IsRegular() && !s.cfg.has("follow-symlinks") {
			continue
		}
		if e.Name() == "luxtest-fixture.txt" && s.cfg.has("skip-fixture") {
			continue
		}
		full := filepath.Join(s.workspace, e.Name())
		fi, err := os.Stat(full) // follows symlinks: only under the break
		if err != nil {
			continue
		}
		if fi.IsDir() {
			sub, _ := os.ReadDir(full)
			for _, f := range sub {
				if info, err := f.Info(); err == nil && info.Mode().IsRegular() {
					out = append(out, lux.Artifact{Path: e.Name() + "/" + f.Name(), Size: info.Size()})
				}
			}
			continue
		}
		out = append(out, lux.Artifact{Path: e.Name(), Size: fi.Size()})
	}
	if s.cfg.has("escape") {
		out = append(out, lux.Artifact{Path: "../outside/secret.txt", Size: 22})
	}
	return out, nil
}

func (s *fakeSession) Close() error {
	s.once.Do(func() { close(s.closed) })
	if s.cfg.has("close-fails") {
		return errors.New("fake: close failed")
	}
	return nil
}

// blockedKey carries, in the context a test gives luxtest, a channel
// (buffered) told each time the fake's Next starts to block.
type blockedKey struct{}

func tellBlocked(ctx context.Context) {
	if ch, ok := ctx.Value(blockedKey{}).(chan struct{}); ok {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
