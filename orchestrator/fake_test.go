package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/luxeval/lux/sandbox"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
)

// An in-process fake driver: each scenario is a Go function playing the
// agent in its own goroutine, exchanging events with the session through
// channels the way a real agent does through its pipes.

type scenario func(ctx context.Context, a *fakeAgent) error

var (
	scenariosMu sync.Mutex
	scenarios   = map[string]scenario{}
)

// addScenario registers a scenario under a name unique to the test.
func addScenario(t testing.TB, f scenario) string {
	t.Helper()
	scenariosMu.Lock()
	defer scenariosMu.Unlock()
	name := fmt.Sprintf("%s#%d", t.Name(), len(scenarios))
	scenarios[name] = f
	return name
}

type fakeConfig struct {
	Scenario     string           `json:"scenario"`
	Capabilities []lux.Capability `json:"capabilities,omitempty"`
	Idle         int              `json:"idle,omitempty"`
	// Gated makes the driver a GatedStarter: its Start calls the run's
	// sandbox Gate before it starts the agent, as the sandbox does.
	Gated bool `json:"gated,omitempty"`
	// StartDeadline names a signal (see addSignal): the driver's start
	// gives up at the gate, its own context ended, then sends it.
	StartDeadline string `json:"startDeadline,omitempty"`
}

// signals are channels a fake driver sends on, by name.
var signals sync.Map // name → chan struct{}

func addSignal(t *testing.T) (string, <-chan struct{}) {
	name := t.Name() + "#signal"
	ch := make(chan struct{}, 1)
	signals.Store(name, ch)
	return name, ch
}

func (c *fakeConfig) StartsAtGate() bool { return c.Gated }

var fakeDriver = &lux.DriverPlugin{
	Name: "fake",
	Doc:  "runs an in-process scenario",
	Parse: func(raw json.RawMessage) (lux.DriverConfig, error) {
		cfg := &fakeConfig{}
		if err := lux.DecodeConfig(raw, cfg); err != nil {
			return nil, err
		}
		var p lux.Problems
		if cfg.Scenario == "" {
			p.Add("scenario", "required")
		}
		if cfg.Idle < 0 {
			p.Add("idle", "must be positive")
		}
		if err := p.Err(lux.ErrInvalidConfig); err != nil {
			return nil, err
		}
		return cfg, nil
	},
}

func (c *fakeConfig) Runtime() lux.Runtime {
	return lux.Runtime{Commands: nil, Capabilities: c.Capabilities}
}

func (c *fakeConfig) Start(ctx context.Context, info lux.StartInfo) (lux.Session, error) {
	scenariosMu.Lock()
	f := scenarios[c.Scenario]
	scenariosMu.Unlock()
	if f == nil {
		return nil, fmt.Errorf("no scenario %q", c.Scenario)
	}
	if box := sandbox.FromContext(ctx); c.Gated && box != nil && box.Gate != nil {
		gctx := ctx
		if c.StartDeadline != "" {
			var cancel context.CancelFunc
			gctx, cancel = context.WithCancel(ctx)
			cancel() // the start's own deadline has passed
		}
		err := box.Gate(gctx)
		if v, ok := signals.Load(c.StartDeadline); ok {
			v.(chan struct{}) <- struct{}{}
		}
		if err != nil {
			return nil, fmt.Errorf("the start was refused at its gate: %w", err)
		}
	}
	actx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	a := &fakeAgent{info: info, events: make(chan lux.Event), answers: make(chan lux.Answer), exited: make(chan struct{})}
	s := &fakeSession{a: a, cancel: cancel}
	go func() {
		defer close(a.exited)
		if err := f(actx, a); err != nil && actx.Err() == nil {
			a.emit(actx, lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: err.Error()}})
		}
	}()
	return s, nil
}

type fakeAgent struct {
	info    lux.StartInfo
	events  chan lux.Event
	answers chan lux.Answer
	exited  chan struct{}
}

func (a *fakeAgent) emit(ctx context.Context, e lux.Event) bool {
	select {
	case a.events <- e:
		return true
	case <-ctx.Done():
		return false
	}
}

func (a *fakeAgent) ready(ctx context.Context) bool {
	return a.emit(ctx, lux.Event{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "fake", AgentVersion: "1.0"}})
}

func (a *fakeAgent) say(ctx context.Context, text string) bool {
	p := lux.NewProgress("", lux.KindAgentMessage, &lux.Message{Text: text})
	return a.emit(ctx, lux.Event{Type: lux.EventProgress, Progress: &p})
}

func (a *fakeAgent) tool(ctx context.Context, id, name string, failed bool) bool {
	c := lux.NewProgress("tc-"+id, lux.KindToolCall, &lux.ToolCall{Name: name, ToolUseID: id, Input: map[string]any{}})
	r := lux.NewProgress("tr-"+id, lux.KindToolResult, &lux.ToolResult{Name: name, ToolUseID: id, IsError: failed, Text: "ok"})
	return a.emit(ctx, lux.Event{Type: lux.EventProgress, Progress: &c}) && a.emit(ctx, lux.Event{Type: lux.EventProgress, Progress: &r})
}

// ask sends an interrupt and waits for the answer.
func (a *fakeAgent) ask(ctx context.Context, in lux.Interrupt) (lux.Answer, bool) {
	if !a.emit(ctx, lux.Event{Type: lux.EventInterrupt, Interrupt: &in}) {
		return lux.Answer{}, false
	}
	select {
	case ans := <-a.answers:
		return ans, true
	case <-ctx.Done():
		return lux.Answer{}, false
	}
}

func (a *fakeAgent) write(name, content string) error {
	path := filepath.Join(a.info.Workspace, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o600)
}

func (a *fakeAgent) done(ctx context.Context, usage *lux.TokenUsage) bool {
	return a.emit(ctx, lux.Event{Type: lux.EventDone, Done: &lux.Done{Usage: usage}})
}

type fakeSession struct {
	a        *fakeAgent
	cancel   context.CancelFunc
	terminal bool
}

func (s *fakeSession) Next(ctx context.Context) (lux.Event, error) {
	if s.terminal {
		return lux.Event{}, io.EOF
	}
	select {
	case e := <-s.a.events:
		s.terminal = e.Terminal()
		return e, nil
	case <-s.a.exited:
		return lux.Event{}, io.EOF
	case <-ctx.Done():
		return lux.Event{}, ctx.Err()
	}
}

func (s *fakeSession) Respond(ctx context.Context, ans lux.Answer) error {
	select {
	case s.a.answers <- ans:
		return nil
	case <-s.a.exited:
		return errors.New("agent exited")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *fakeSession) Quiesce(ctx context.Context) error {
	s.cancel()
	select {
	case <-s.a.exited:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *fakeSession) Collect(ctx context.Context) ([]lux.Artifact, error) {
	var out []lux.Artifact
	root := s.a.info.Workspace
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		out = append(out, lux.Artifact{Path: filepath.ToSlash(rel), Size: fi.Size()})
		return nil
	})
	return out, err
}

func (s *fakeSession) Close() error { s.cancel(); return nil }

// A fake answerer answering asks from a table.

type fakeAnswererConfig struct {
	Answers map[string]string `json:"answers"`
	WrongID bool              `json:"wrongId,omitempty"`
	Fail    bool              `json:"fail,omitempty"`
	Tokens  int64             `json:"tokens,omitempty"`
	// Track names a tracker (see addTracker) counting the answerers
	// prepared and closed.
	Track string `json:"track,omitempty"`
}

// tracker counts a test's answerers; prepared is sent each Prepare.
type tracker struct {
	open     atomic.Int32
	prepared chan struct{}
}

var trackers sync.Map // name → *tracker

func addTracker(t *testing.T) (string, *tracker) {
	name := t.Name()
	tr := &tracker{prepared: make(chan struct{}, 64)}
	trackers.Store(name, tr)
	return name, tr
}

var fakeAnswerer = &lux.AnswererPlugin{
	Name: "table",
	Doc:  "answers from a table by interrupt id",
	Parse: func(raw json.RawMessage) (lux.AnswererConfig, error) {
		cfg := &fakeAnswererConfig{}
		if err := lux.DecodeConfig(raw, cfg); err != nil {
			return nil, err
		}
		return cfg, nil
	},
}

func (c *fakeAnswererConfig) Prepare(ctx context.Context, info lux.AnswererInfo) (lux.Answerer, error) {
	a := &tableAnswerer{cfg: c}
	if v, ok := trackers.Load(c.Track); ok && c.Track != "" {
		a.tr = v.(*tracker)
		a.tr.open.Add(1)
		a.tr.prepared <- struct{}{}
	}
	return a, nil
}

type tableAnswerer struct {
	cfg   *fakeAnswererConfig
	usage lux.TokenUsage
	tr    *tracker
}

func (t *tableAnswerer) Answer(ctx context.Context, in lux.Interrupt, history []lux.Exchange) (lux.Answer, error) {
	if t.cfg.Fail {
		return lux.Answer{}, fmt.Errorf("%w: no rule for %q", lux.ErrUnanswered, in.Question)
	}
	t.usage.Input += t.cfg.Tokens
	id := in.ID
	if t.cfg.WrongID {
		id = "not-" + id
	}
	text, ok := t.cfg.Answers[in.Question]
	if !ok {
		return lux.Answer{}, fmt.Errorf("%w: no rule for %q", lux.ErrUnanswered, in.Question)
	}
	return lux.Answer{Kind: in.Kind, ID: id, Text: text}, nil
}

func (t *tableAnswerer) Usage() lux.ModelUsage { return lux.ModelUsage{TokenUsage: t.usage} }
func (t *tableAnswerer) Close() error {
	if t.tr != nil {
		t.tr.open.Add(-1)
	}
	return nil
}

// Fake assertions.

type fileHas struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

var fileHasPlugin = &lux.AssertionPlugin{
	Type: "file-has", Version: "1", Doc: "passes when a file holds a string",
	Parse: func(raw json.RawMessage) (lux.Check, error) {
		c := &fileHas{}
		if err := lux.DecodeConfig(raw, c); err != nil {
			return nil, err
		}
		if c.Path == "" {
			var p lux.Problems
			p.AddFix("path", "required", "name a file in the workspace")
			return nil, p.Err(lux.ErrInvalidConfig)
		}
		return assertion.CheckFunc(func(ctx context.Context, run *lux.Run) (lux.Result, error) {
			b, err := os.ReadFile(filepath.Join(run.Workspace, c.Path))
			if err != nil {
				return assertion.Fail(c.Path+" is missing", nil), nil
			}
			if string(b) != c.Text {
				return assertion.Fail(fmt.Sprintf("%s holds %q", c.Path, b), nil), nil
			}
			return assertion.Pass(c.Path+" holds the text", nil), nil
		}), nil
	},
}

type fixed struct {
	Score  float64 `json:"score"`
	Passed bool    `json:"passed"`
	Err    string  `json:"err,omitempty"`
	Judge  int64   `json:"judge,omitempty"`
}

var fixedPlugin = &lux.AssertionPlugin{
	Type: "fixed", Version: "1", Doc: "returns a fixed result",
	Parse: func(raw json.RawMessage) (lux.Check, error) {
		c := &fixed{}
		if err := lux.DecodeConfig(raw, c); err != nil {
			return nil, err
		}
		return assertion.CheckFunc(func(ctx context.Context, run *lux.Run) (lux.Result, error) {
			if c.Err != "" {
				return lux.Result{}, errors.New(c.Err)
			}
			r := lux.Result{Passed: c.Passed, Score: c.Score}
			if c.Judge > 0 {
				r.Usage = &lux.ModelUsage{TokenUsage: lux.TokenUsage{Output: c.Judge}}
			}
			return r, nil
		}), nil
	},
}

func testRegistry(t testing.TB) *lux.Registry {
	t.Helper()
	reg := lux.NewRegistry()
	for _, err := range []error{
		reg.RegisterDriver(fakeDriver), reg.RegisterAnswerer(fakeAnswerer),
		reg.RegisterAssertion(fileHasPlugin), reg.RegisterAssertion(fixedPlugin),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

func driverRef(name string, caps ...lux.Capability) *lux.PluginRef {
	return &lux.PluginRef{Name: "fake", Config: map[string]any{"scenario": name, "capabilities": caps}}
}

// gatedRef is driverRef of a driver that starts its agent at the run's
// gate (see GatedStarter).
func gatedRef(name string) *lux.PluginRef {
	return &lux.PluginRef{Name: "fake", Config: map[string]any{"scenario": name, "gated": true}}
}

// eachStart runs f for a driver started once the run has its turn, and
// for one started before it, its agent held at the gate.
func eachStart(t *testing.T, f func(t *testing.T, ref func(string) *lux.PluginRef)) {
	t.Run("after-turn", func(t *testing.T) { f(t, func(s string) *lux.PluginRef { return driverRef(s) }) })
	t.Run("at-gate", func(t *testing.T) { f(t, gatedRef) })
}

// writeHello is the trivial agent: it writes one file and exits.
func writeHello(ctx context.Context, a *fakeAgent) error {
	if !a.ready(ctx) {
		return nil
	}
	if err := a.write("hello.txt", "hello"); err != nil {
		return err
	}
	a.done(ctx, &lux.TokenUsage{Input: 10, Output: 5})
	return nil
}
