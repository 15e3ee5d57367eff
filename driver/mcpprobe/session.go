package mcpprobe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/internal/clock"
)

// ClientName and ClientVersion are what the probe tells servers it is.
const (
	ClientName    = "lux-mcp-probe"
	ClientVersion = "1.0.0"
)

// exitWait bounds how long a failed step waits for a stdio server whose
// connection was lost to exit, so that the error can say how it ended.
const exitWait = 2 * time.Second

// codeRejected is the code of the SDK's error for a message its transport
// could not deliver (an HTTP request that failed, say): not an answer of
// the server.
const codeRejected = -32005

// session is one probe of one server.
type session struct {
	cfg       *Config
	workspace string
	target    string // the command or URL, for messages and ready
	proc      *driver.Process
	transport *watched
	clk       clock.Clock // the time source of every limit and grace: Start's context's

	ctx    context.Context // ends when the session is quiesced; carries clk
	cancel context.CancelFunc
	events chan lux.Event
	ended  chan struct{} // the probe has stopped and torn the server down

	mu        sync.Mutex
	delivered bool // Next returned the terminal event
	cs        *mcp.ClientSession
}

var _ lux.Session = (*session)(nil)

// Start starts (or, for a URL, reaches) the server and runs the probe in
// the background; its events come from Next.
func (c *Config) Start(ctx context.Context, info lux.StartInfo) (lux.Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := &session{cfg: c, workspace: info.Workspace, clk: clock.From(ctx), events: make(chan lux.Event), ended: make(chan struct{})}
	var t mcp.Transport
	var err error
	if c.URL != "" {
		s.target = c.URL
		t, err = c.httpTransport(info)
	} else {
		s.target = c.Command
		s.proc, t, err = c.startStdio(ctx, info)
	}
	if err != nil {
		return nil, err
	}
	s.transport = &watched{Transport: t}
	s.ctx, s.cancel = context.WithCancel(clock.With(context.Background(), s.clk))
	go s.run()
	return s, nil
}

// Next returns the next event; io.EOF after the terminal event.
func (s *session) Next(ctx context.Context) (lux.Event, error) {
	s.mu.Lock()
	done := s.delivered
	s.mu.Unlock()
	if done {
		return lux.Event{}, io.EOF
	}
	if err := ctx.Err(); err != nil {
		return lux.Event{}, err
	}
	select {
	case ev, ok := <-s.events:
		if !ok {
			return lux.Event{}, io.EOF
		}
		if ev.Terminal() {
			s.mu.Lock()
			s.delivered = true
			s.mu.Unlock()
		}
		return ev, nil
	case <-ctx.Done():
		return lux.Event{}, ctx.Err()
	}
}

// Respond always fails: the probe raises no interrupts.
func (s *session) Respond(context.Context, lux.Answer) error {
	return fmt.Errorf("mcp-probe: %w: the probe raises no interrupts", lux.ErrAnswerMismatch)
}

// Quiesce stops the probe and the server's process group. Safe to call
// more than once.
func (s *session) Quiesce(ctx context.Context) error {
	s.cancel()
	select {
	case <-s.ended:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("mcp-probe: quiesce: %w", ctx.Err())
	}
}

// Collect quiesces the server and returns the files in the workspace.
func (s *session) Collect(ctx context.Context) ([]lux.Artifact, error) {
	if err := s.Quiesce(ctx); err != nil {
		return nil, err
	}
	if s.workspace == "" {
		return nil, nil
	}
	return driver.WalkArtifacts(s.workspace, driver.DefaultMaxArtifactFiles)
}

// Close quiesces the server and releases the session.
func (s *session) Close() error { return s.Quiesce(context.Background()) }

// emit hands ev to Next; false when the session was quiesced first.
func (s *session) emit(ev lux.Event) bool {
	if ev.Type != lux.EventReady {
		ev.Time = time.Now()
	}
	select {
	case s.events <- ev:
		return true
	case <-s.ctx.Done():
		return false
	}
}

func (s *session) progress(id, kind string, v any) bool {
	p := lux.NewProgress(id, kind, v)
	return s.emit(lux.Event{Type: lux.EventProgress, Progress: &p})
}

// run connects, runs every step, ends the run with done or error, then
// tears the server down.
func (s *session) run() {
	defer close(s.ended)
	defer close(s.events)
	defer s.teardown()
	summary, err := s.probe()
	if s.ctx.Err() != nil {
		return // quiesced: nobody is reading
	}
	if err != nil {
		s.emit(lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: "mcp-probe: " + err.Error()}})
		return
	}
	s.emit(lux.Event{Type: lux.EventDone, Done: &lux.Done{Summary: summary}})
}

// Summary is the summary of a done event.
type Summary struct {
	ServerInfo   *ServerInfo `json:"serverInfo,omitempty"`
	Steps        int         `json:"steps"`
	Calls        int         `json:"calls"`
	ErrorResults int         `json:"errorResults"`          // calls whose result had isError
	ToolsListed  *int        `json:"toolsListed,omitempty"` // tools of the last list-tools
}

// probe runs the handshake and the steps; an error is a protocol or
// transport failure, already explained.
func (s *session) probe() (*Summary, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: ClientName, Version: ClientVersion}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{},
	})
	ctx, cancel := clock.WithTimeoutCause(s.ctx, s.cfg.StartupTimeout.D(), errStartupTimeout)
	cs, err := client.Connect(ctx, s.transport, nil)
	if err != nil {
		err = s.explain(ctx, "initialize", s.cfg.StartupTimeout.D(), err)
		cancel()
		return nil, err
	}
	cancel()
	s.mu.Lock()
	s.cs = cs
	s.mu.Unlock()
	init := initOf(cs.InitializeResult())
	ready := &lux.Ready{AgentID: Name, Detail: map[string]any{"transport": s.transportName(), "target": s.target}}
	if init.ServerInfo != nil {
		ready.AgentVersion = init.ServerInfo.Version
		ready.Detail["serverName"] = init.ServerInfo.Name
		ready.Detail["serverVersion"] = init.ServerInfo.Version
	}
	if init.ProtocolVersion != "" {
		ready.Detail["protocolVersion"] = init.ProtocolVersion
	}
	sum := &Summary{ServerInfo: init.ServerInfo, Steps: len(s.cfg.Probe)}
	if !s.emit(lux.Event{Type: lux.EventReady, Ready: ready}) || !s.progress("mcp-init", KindInit, init) {
		return nil, nil
	}
	for i, step := range s.cfg.Probe {
		ctx, cancel := clock.WithTimeoutCause(s.ctx, s.cfg.StepTimeout.D(), errStepTimeout)
		var ok bool
		switch step.Op {
		case OpListTools:
			var l *ToolsList
			l, err = s.listTools(ctx, cs)
			if err == nil {
				n := len(l.Tools)
				sum.ToolsListed = &n
				ok = s.progress(fmt.Sprintf("mcp-tools-list-%d", i+1), KindToolsList, l)
			}
		case OpCall:
			var isError bool
			isError, ok, err = s.call(ctx, cs, i, step)
			sum.Calls++
			if isError {
				sum.ErrorResults++
			}
		}
		cancel()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, nil
		}
	}
	return sum, nil
}

func (s *session) transportName() string {
	if s.proc == nil {
		return "streamable-http"
	}
	return "stdio"
}

// listTools lists every page, guarding against a server that never stops.
func (s *session) listTools(ctx context.Context, cs *mcp.ClientSession) (*ToolsList, error) {
	l := &ToolsList{Tools: []ListedTool{}}
	seen := map[string]bool{}
	cursor := ""
	for {
		if l.Pages == s.cfg.MaxListPages {
			return nil, fmt.Errorf("tools/list: more than %d pages (maxListPages); the last cursor was %q", s.cfg.MaxListPages, cursor)
		}
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, s.explain(ctx, "tools/list", s.cfg.StepTimeout.D(), err)
		}
		l.Pages++
		for _, t := range res.Tools {
			if t != nil {
				l.Tools = append(l.Tools, listed(t))
			}
		}
		if res.NextCursor == "" {
			return l, nil
		}
		if seen[res.NextCursor] {
			return nil, fmt.Errorf("tools/list: the server repeated the cursor %q after %d pages", res.NextCursor, l.Pages)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// call calls one tool and reports the call and its result. A result with
// isError is a result like any other; an error is a protocol failure.
func (s *session) call(ctx context.Context, cs *mcp.ClientSession, i int, step Step) (isError, ok bool, err error) {
	id := fmt.Sprintf("probe-%d", i+1)
	input := map[string]any(step.Args)
	if input == nil {
		input = map[string]any{}
	}
	if !s.progress("tc-"+id, lux.KindToolCall, &lux.ToolCall{Name: step.Tool, Input: input, ToolUseID: id}) {
		return false, false, nil
	}
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: step.Tool, Arguments: input})
	ms := float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		return false, false, s.explain(ctx, fmt.Sprintf("tools/call %q", step.Tool), s.cfg.StepTimeout.D(), err)
	}
	r := resultOf(step.Tool, id, res)
	r.DurationMs = &ms
	return r.IsError, s.progress("tr-"+id, lux.KindToolResult, r), nil
}

// explain turns a failed request into the reason the run failed: the
// server's stdout was not JSON-RPC, the server answered with an error, the
// connection was lost because the server exited (how, and its stderr), it
// did not answer in time, or what the SDK said (a refused answer, say),
// with the server's exit, if it has exited, as context after it.
func (s *session) explain(ctx context.Context, what string, limit time.Duration, err error) error {
	if rerr := s.transport.readErr(); rerr != nil {
		hint := ""
		var syntax *json.SyntaxError
		switch {
		case errors.As(rerr, &syntax) && s.proc != nil:
			hint = " (stdout is for JSON-RPC messages only: does the server print logs there? They belong on stderr)"
		case strings.Contains(rerr.Error(), "maximum line length"): // the SDK's error for a frame over the cap is not exported
			hint = fmt.Sprintf(" (a message is over maxMessageBytes, %d; raise it if the server's answers are that large)", s.cfg.MaxMessageBytes)
		}
		return s.withStderr(fmt.Errorf("%s: cannot read the server's messages: %v%s", what, rerr, hint))
	}
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) && rpc.Code != codeRejected {
		return fmt.Errorf("%s: the server answered with error %d: %s", what, rpc.Code, rpc.Message)
	}
	if s.proc != nil && lost(err) && s.waitExit(ctx) {
		// The stderr copy may lag behind the exit: let it reach its
		// end (bounded, for a descendant that holds stderr open).
		s.proc.WaitOutput(driver.DefaultExitDrain)
		return s.withStderr(fmt.Errorf("%s: the server exited (%s)", what, s.proc.Status()))
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return s.withStderr(fmt.Errorf("%s: no answer within %s", what, limit))
	}
	return s.withStderr(fmt.Errorf("%s: %w%s", what, err, s.exitNote()))
}

// Causes of the probe's own time limits.
var (
	errStartupTimeout = errors.New("mcp-probe: startupTimeout passed")
	errStepTimeout    = errors.New("mcp-probe: stepTimeout passed")
)

// lost reports whether err says the connection to the server is gone, of
// which the server's exit is the likely cause; any other error is the
// SDK's own verdict on what the server said.
func lost(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrClosed) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, driver.ErrStdinClosed)
}

// waitExit waits, at most exitWait on the session's clock, for a stdio
// server to exit; it reports whether it did. ctx ending cuts it short.
func (s *session) waitExit(ctx context.Context) bool {
	passed := make(chan struct{})
	t := s.clk.AfterFunc(exitWait, func() { close(passed) })
	defer t.Stop()
	select {
	case <-s.proc.Exited():
		return true
	case <-ctx.Done():
	case <-passed:
	}
	return false
}

// exitNote is ", and the server has exited (code=0, signal=none)" once a
// stdio server has exited, else "": context after the cause.
func (s *session) exitNote() string {
	if s.proc == nil {
		return ""
	}
	select {
	case <-s.proc.Exited():
		return fmt.Sprintf("; the server has exited (%s)", s.proc.Status())
	default:
		return ""
	}
}

// withStderr appends the tail of a stdio server's stderr.
func (s *session) withStderr(err error) error {
	if s.proc == nil {
		return err
	}
	if tail := strings.TrimSpace(s.proc.StderrTail()); tail != "" {
		return fmt.Errorf("%w\nstderr:\n%s", err, tail)
	}
	return err
}

// teardown stops a stdio server the way the MCP specification says (its
// stdin closed, a grace to exit, then SIGTERM, then SIGKILL: see
// driver.Process.Stop), every grace on the session's clock, then closes
// the MCP session.
func (s *session) teardown() {
	ctx := clock.With(context.Background(), s.clk)
	if s.proc != nil {
		_ = s.proc.Stop(ctx, driver.DefaultKillGrace)
		s.proc.WaitOutput(driver.DefaultExitDrain)
	}
	s.mu.Lock()
	cs := s.cs
	s.mu.Unlock()
	if cs != nil {
		closed := make(chan struct{})
		go func() { _ = cs.Close(); close(closed) }()
		// A bound on the cleanup, which decides nothing the run reports:
		// the system's clock.
		t := time.NewTimer(exitWait)
		defer t.Stop()
		select {
		case <-closed:
		case <-t.C:
		}
	}
}

// initOf is the mcp-init payload of an initialize result.
func initOf(r *mcp.InitializeResult) *Init {
	in := &Init{}
	if r == nil {
		return in
	}
	if r.ServerInfo != nil {
		in.ServerInfo = &ServerInfo{Name: r.ServerInfo.Name, Title: r.ServerInfo.Title, Version: r.ServerInfo.Version}
	}
	in.ProtocolVersion = r.ProtocolVersion
	in.Instructions = r.Instructions
	if r.Capabilities != nil {
		var m map[string]any
		if generic(r.Capabilities, &m) == nil && len(m) > 0 {
			in.Capabilities = m
		}
	}
	return in
}

// listed is a listed tool in the record's terms.
func listed(t *mcp.Tool) ListedTool {
	l := ListedTool{Name: t.Name, Title: t.Title, Description: t.Description}
	_ = generic(t.InputSchema, &l.InputSchema)
	_ = generic(t.OutputSchema, &l.OutputSchema)
	if t.Annotations != nil {
		_ = generic(t.Annotations, &l.Annotations)
	}
	return l
}

// resultOf is the tool-result payload of a call's result: the content as
// the server sent it (a list of blocks), its structured content when it is
// an object, and the text blocks joined by newlines.
func resultOf(name, id string, res *mcp.CallToolResult) *lux.ToolResult {
	r := &lux.ToolResult{Name: name, ToolUseID: id, IsError: res.IsError, Content: []any{}}
	var content []any
	if generic(res.Content, &content) == nil && content != nil {
		r.Content = content
	}
	if res.StructuredContent != nil {
		var m map[string]any
		if generic(res.StructuredContent, &m) == nil {
			r.StructuredContent = m
		}
	}
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	r.Text = strings.Join(texts, "\n")
	return r
}

// generic re-decodes v as plain JSON values into dst.
func generic(v any, dst any) error {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, dst)
}
