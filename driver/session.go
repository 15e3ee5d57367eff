package driver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/clock"
	"github.com/luxeval/lux/sandbox"
)

// DefaultMaxInterrupts is how many interrupts a run may raise when a
// driver's config sets no limit.
const DefaultMaxInterrupts = 20

// DefaultExitDrain is how long a Session keeps reading an agent's output
// after the agent's process group is gone, for a descendant that escaped
// the group and holds the output open.
const DefaultExitDrain = time.Second

// Protocol speaks one agent's wire format. A driver implements it and
// hands it to StartSession, which does everything else.
type Protocol interface {
	// Parse turns one line of the agent's stdout (without the newline)
	// into zero or more events. A line that is not part of the protocol
	// (a log line, say) yields no events and no error. Parse may write to
	// the agent's stdin, for example to reply to a request. An error ends
	// the run with an error event. Parse is called from one goroutine, in
	// line order; line is its own, so events may keep it (as a raw payload,
	// say).
	Parse(ctx context.Context, line []byte, stdin *Stdin) ([]lux.Event, error)
	// Answer writes a, the answer to the interrupt in, to the agent.
	Answer(ctx context.Context, in lux.Interrupt, a lux.Answer, stdin *Stdin) error
}

// SessionOptions configure StartSession. The zero value of every field but
// Process.Path and Protocol means its default.
type SessionOptions struct {
	Process  ProcessSpec
	Protocol Protocol
	// Workspace is the directory Collect walks for artifacts.
	Workspace string
	// IdleTimeout is how long the agent may stay silent (no event) while
	// no interrupt is outstanding; zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Timeout is the agent's wall-clock limit, from its start; past it the
	// run ends with ErrorEvent{ExitTimeout, ...} and the agent is stopped.
	// Zero means none (the orchestrator has its own, see
	// orchestrator.Options.RunTimeout).
	Timeout time.Duration
	// MaxInterrupts is how many interrupts the run may raise; zero means
	// DefaultMaxInterrupts.
	MaxInterrupts int
	// MaxLineBytes caps one stdout line; zero means DefaultMaxLineBytes.
	MaxLineBytes int
	// MaxArtifactFiles caps Collect; zero means DefaultMaxArtifactFiles.
	MaxArtifactFiles int
	// MaxArtifactFileBytes and MaxArtifactBytes cap the bytes Collect
	// hashes of one file and in all (see CollectArtifacts); zero means
	// DefaultMaxArtifactFileBytes and DefaultMaxArtifactBytes.
	MaxArtifactFileBytes, MaxArtifactBytes int64
	// CollectTimeout bounds Collect's walk and hashing; files not hashed
	// by then are listed unhashed. Zero means DefaultCollectTimeout.
	CollectTimeout time.Duration
	// KillGrace is the time between SIGTERM and SIGKILL when the agent is
	// stopped; zero means DefaultKillGrace.
	KillGrace time.Duration
	// ExitDrain bounds the wait for stdout to close once the agent's
	// process group is gone; zero means DefaultExitDrain.
	ExitDrain time.Duration
	// Ready, when set, is emitted as soon as the agent starts, for
	// protocols that have no ready message of their own.
	Ready *lux.Ready
	// Input is written to the agent's stdin once it starts (the prompt,
	// for agents that read it there); CloseStdin then closes stdin.
	Input      []byte
	CloseStdin bool
	// OnExit, when set, decides the terminal event for an agent that
	// exited without one; returning nil keeps the default error
	// "agent exited before done (code=N, signal=S)".
	OnExit func(status ExitStatus, stderrTail string) *lux.Event
	// OnClose, when set, is called once by Close after the agent has been
	// stopped, to remove what the driver made for the run (a prompt file,
	// say).
	OnClose func()
	// TouchOnLine re-arms the idle clock on every stdout line, not only on
	// events, for protocols whose lines do not all become events (deltas
	// a driver joins into one message, say). It never re-arms a paused clock.
	TouchOnLine bool
}

// Session runs one agent process and implements lux.Session over a
// Protocol. It enforces the event ordering every driver shares:
//
//   - before ready, only progress is allowed; an interrupt or done before
//     ready ends the run with the error "agent emitted <type> before ready";
//   - there is exactly one terminal event (done or error); everything after
//     it is dropped, and the agent's process group is stopped;
//   - the idle clock is re-armed by every event, paused while an interrupt
//     is outstanding and resumed once its answer is written; on expiry the
//     run ends with ErrorEvent{ExitIdleTimeout, "no event for 2m0s"} (before
//     ready: ErrorEvent{ExitError, "agent never became ready: no event for 2m0s"});
//   - with a Timeout, the run ends at that time after the start with
//     ErrorEvent{ExitTimeout, "the agent ran longer than its 30m0s time limit"};
//   - more interrupts than MaxInterrupts end the run with
//     ErrorEvent{ExitMaxInteractions, "exceeded maxInterrupts (N)"};
//   - a stdout line longer than MaxLineBytes ends the run with the error
//     "stdout line exceeded N bytes";
//   - an agent that exits without a terminal event ends the run with the
//     error "agent exited before done (code=N, signal=S)" (or "before
//     ready"), followed by the tail of its stderr.
//
// Events get their Time when the session sees them (except ready, which
// has none).
type Session struct {
	opts  SessionOptions
	proc  *Process
	clk   clock.Clock // the time source of the idle clock and the time limit
	clock *IdleClock

	deadline clock.Timer   // the time limit, armed at the start; nil without one
	timedOut chan struct{} // closed at the time limit

	stop       chan struct{} // closed by Close: the session is being torn down
	stopOnce   sync.Once
	quiescing  chan struct{} // closed by Quiesce: Parse's context is cancelled
	qOnce      sync.Once
	readerDone chan struct{}
	notify     chan struct{}

	mu         sync.Mutex
	queue      []lux.Event
	ready      bool
	terminal   bool // a terminal event is queued or delivered
	delivered  bool // Next returned the terminal event
	interrupts int
	pending    []lux.Interrupt

	qmu      sync.Mutex // serializes Quiesce
	quiesced bool
}

var _ lux.Session = (*Session)(nil)

// StartSession starts the agent process and begins reading its events. It
// returns once the process is launched; a process that cannot be started
// is a *StartError ("failed to start <cmd>: ...").
// The sandbox of the run ctx carries (sandbox.FromContext) confines the
// process, and its Gate (sandbox.Run.Gate), called with ctx, holds the
// prepared process until it lets it go; the idle clock and the time
// limit start after it, on the clock ctx carries: the system's, unless
// the module's own tests gave a manual one.
func StartSession(ctx context.Context, opts SessionOptions) (*Session, error) {
	if opts.Protocol == nil {
		return nil, errors.New("driver: session needs a Protocol")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	orDefault(&opts.IdleTimeout, DefaultIdleTimeout)
	orDefault(&opts.MaxInterrupts, DefaultMaxInterrupts)
	orDefault(&opts.MaxLineBytes, DefaultMaxLineBytes)
	orDefault(&opts.CollectTimeout, DefaultCollectTimeout)
	orDefault(&opts.KillGrace, DefaultKillGrace)
	orDefault(&opts.ExitDrain, DefaultExitDrain)
	if opts.Process.Sandbox == nil {
		opts.Process.Sandbox = sandbox.FromContext(ctx)
	}
	p, err := StartProcessContext(ctx, opts.Process)
	if err != nil {
		return nil, err
	}
	s := &Session{
		opts:       opts,
		proc:       p,
		clk:        clock.From(ctx),
		clock:      newIdleClock(opts.IdleTimeout, clock.From(ctx)),
		stop:       make(chan struct{}),
		quiescing:  make(chan struct{}),
		readerDone: make(chan struct{}),
		notify:     make(chan struct{}, 1),
	}
	if opts.Timeout > 0 {
		s.timedOut = make(chan struct{})
		s.deadline = s.clk.AfterFunc(opts.Timeout, func() { close(s.timedOut) })
	}
	if opts.Ready != nil {
		r := *opts.Ready
		s.emit(lux.Event{Type: lux.EventReady, Ready: &r})
	}
	if len(opts.Input) > 0 || opts.CloseStdin {
		go func() {
			if len(opts.Input) > 0 {
				_ = p.Stdin().Write(context.Background(), opts.Input)
			}
			if opts.CloseStdin {
				_ = p.Stdin().Close()
			}
		}()
	}
	go s.read()
	go s.watch()
	return s, nil
}

// Pid is the process id of the agent (the leader of its process group).
func (s *Session) Pid() int { return s.proc.Pid() }

// Stdin is the agent's standard input.
func (s *Session) Stdin() *Stdin { return s.proc.Stdin() }

// StderrTail returns the last bytes the agent wrote to stderr.
func (s *Session) StderrTail() string { return s.proc.StderrTail() }

// Status is how the agent process ended; the zero ExitStatus while it runs.
func (s *Session) Status() ExitStatus { return s.proc.Status() }

// Exited is closed once the agent process (the leader of its group) has exited.
func (s *Session) Exited() <-chan struct{} { return s.proc.Exited() }

// Next returns the next event; after the terminal event it returns io.EOF.
// A cancelled ctx returns ctx.Err() and leaves the agent running until
// Quiesce. Callers in several goroutines each get different events, and
// all get io.EOF once the terminal event has been returned.
func (s *Session) Next(ctx context.Context) (lux.Event, error) {
	for {
		if err := ctx.Err(); err != nil {
			return lux.Event{}, err
		}
		s.mu.Lock()
		if len(s.queue) > 0 {
			ev := s.queue[0]
			s.queue[0] = lux.Event{}
			s.queue = s.queue[1:]
			if ev.Terminal() {
				s.delivered = true
			}
			if len(s.queue) > 0 || s.delivered {
				s.wake() // another caller of Next may be waiting
			}
			s.mu.Unlock()
			return ev, nil
		}
		if s.delivered {
			s.mu.Unlock()
			return lux.Event{}, io.EOF
		}
		s.mu.Unlock()
		select {
		case <-s.notify:
		case <-ctx.Done():
			return lux.Event{}, ctx.Err()
		}
	}
}

// wake lets one waiting caller of Next look at the queue again.
func (s *Session) wake() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Respond writes the answer to an outstanding interrupt and, when no other
// interrupt is outstanding, resumes the idle clock. An answer that matches
// no outstanding interrupt is an error wrapping lux.ErrAnswerMismatch.
// Once the run has ended an answer is dropped. An answer the agent can no
// longer read (it closed its stdin, or exited) is not an error of Respond:
// the run ends with an error event that says why, the agent's exit status
// and stderr when it exited.
func (s *Session) Respond(ctx context.Context, a lux.Answer) error {
	s.mu.Lock()
	if s.terminal {
		s.mu.Unlock()
		return nil
	}
	idx := -1
	for i, in := range s.pending {
		if in.Kind == a.Kind && in.ID == a.ID {
			idx = i
			break
		}
	}
	if idx < 0 {
		var err error
		if len(s.pending) == 1 {
			err = a.Matches(s.pending[0])
		} else {
			err = fmt.Errorf("%w: no outstanding interrupt %s %q", lux.ErrAnswerMismatch, a.Kind, a.ID)
		}
		s.mu.Unlock()
		return fmt.Errorf("driver: %w", err)
	}
	in := s.pending[idx]
	s.pending = append(s.pending[:idx], s.pending[idx+1:]...)
	s.mu.Unlock()

	err := s.opts.Protocol.Answer(ctx, in, a, s.proc.Stdin())

	s.mu.Lock()
	if len(s.pending) == 0 {
		s.clock.Resume()
	}
	s.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil && undeliverable(err) {
			s.answerLost(ctx, in)
			return nil
		}
		return fmt.Errorf("driver: answer %s %q: %w", in.Kind, in.ID, err)
	}
	return nil
}

// undeliverable reports a write that failed because the agent's stdin is
// gone: the agent closed it (or exited), or the session did.
func undeliverable(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, ErrStdinClosed) || errors.Is(err, os.ErrClosed)
}

// answerLost ends the run when an answer could not be written because the
// agent no longer reads its stdin. An agent that exited explains itself
// (its exit status and stderr), so it gets ExitDrain to do so first.
func (s *Session) answerLost(ctx context.Context, in lux.Interrupt) {
	t := time.NewTimer(s.opts.ExitDrain)
	defer t.Stop()
	select {
	case <-s.proc.Exited():
		select {
		case <-s.readerDone:
		case <-t.C:
		case <-ctx.Done():
		}
	case <-t.C:
	case <-ctx.Done():
	}
	s.fail(lux.ExitError, fmt.Sprintf("cannot deliver the answer to %s %q: the agent closed its stdin", in.Kind, in.ID))
}

// Quiesce stops the agent's whole process group (Process.Stop: stdin
// closed and a grace to exit, then SIGTERM, then SIGKILL after KillGrace,
// on the system's clock) and waits for its output to close, at most ExitDrain for a descendant
// that escaped the group. Safe to call more than once.
func (s *Session) Quiesce(ctx context.Context) error {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	if s.quiesced {
		return nil
	}
	s.clock.Stop()
	s.qOnce.Do(func() { close(s.quiescing) })
	// The stop's graces run on the system's clock, whatever clock ctx
	// carries: a test's manual clock drives the timers that decide how
	// the run ends, and a stop waited on one nobody advances would hang.
	if err := s.proc.Stop(clock.With(ctx, clock.Real()), s.opts.KillGrace); err != nil {
		return fmt.Errorf("driver: quiesce: %w", err)
	}
	s.drain()
	s.quiesced = true
	return nil
}

// drain waits for the reader to finish, bounded by ExitDrain, then closes
// the output pipes so that it does.
func (s *Session) drain() {
	t := time.NewTimer(s.opts.ExitDrain)
	defer t.Stop()
	select {
	case <-s.readerDone:
	case <-t.C:
	}
	s.proc.WaitOutput(s.opts.ExitDrain)
	<-s.readerDone
}

// Collect quiesces the agent (so nothing it started is left to change
// the workspace) and returns the artifacts in the workspace (see
// CollectArtifacts), within CollectTimeout; none when the session has no
// workspace.
func (s *Session) Collect(ctx context.Context) ([]lux.Artifact, error) {
	if err := s.Quiesce(ctx); err != nil {
		return nil, err
	}
	if s.opts.Workspace == "" {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.CollectTimeout)
	defer cancel()
	return CollectArtifacts(ctx, s.opts.Workspace, ArtifactLimits{
		MaxFiles: s.opts.MaxArtifactFiles, MaxFileBytes: s.opts.MaxArtifactFileBytes, MaxBytes: s.opts.MaxArtifactBytes,
	})
}

// Close quiesces the agent and releases the session. Safe to call more
// than once.
func (s *Session) Close() error {
	err := s.Quiesce(context.Background())
	s.stopOnce.Do(func() {
		close(s.stop)
		if s.opts.OnClose != nil {
			s.opts.OnClose()
		}
	})
	s.proc.CloseOutput()
	return err
}

// read parses stdout lines into events until end of file, then reports an
// agent that exited without a terminal event.
func (s *Session) read() {
	defer close(s.readerDone)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.stop:
		case <-s.quiescing:
		case <-ctx.Done():
		}
		cancel()
	}()
	lr := NewLineReader(s.proc.Stdout(), s.opts.MaxLineBytes)
	for {
		line, err := lr.ReadLine()
		if err != nil {
			if errors.Is(err, ErrLineTooLong) {
				s.fail(lux.ExitError, fmt.Sprintf("stdout line exceeded %d bytes", lr.Max()))
			}
			break
		}
		if s.isTerminal() {
			continue // drain, so the agent never blocks on a full pipe
		}
		if s.opts.TouchOnLine {
			s.clock.Touch()
		}
		// The reader reuses its buffer; the protocol may keep what it is given.
		evs, err := s.opts.Protocol.Parse(ctx, bytes.Clone(line), s.proc.Stdin())
		if err != nil && !undeliverable(err) {
			s.fail(lux.ExitError, "cannot parse agent output: "+err.Error())
			continue
		}
		for _, ev := range evs {
			s.emit(ev)
		}
		if err != nil {
			s.replyLost(err)
		}
	}
	lr.Release()
	// Stdout is closed: report an agent that ended without a terminal event.
	select {
	case <-s.proc.Exited():
	case <-s.stop:
		return
	}
	if s.isTerminal() {
		return
	}
	st := s.proc.Status()
	// The stderr copy may lag behind the exit: let it reach end of file
	// (bounded, for a descendant that escaped the group and holds stderr).
	s.proc.waitStderr(s.opts.ExitDrain)
	tail := s.proc.StderrTail()
	if limit := s.proc.LimitHit(); limit != "" {
		s.fail(lux.ExitError, limit+" ("+st.String()+")")
		return
	}
	if s.opts.OnExit != nil {
		if ev := s.opts.OnExit(st, tail); ev != nil {
			s.emit(*ev)
			if s.isTerminal() {
				return
			}
		}
	}
	s.mu.Lock()
	stage := "done"
	if !s.ready {
		stage = "ready"
	}
	s.mu.Unlock()
	reason := fmt.Sprintf("agent exited before %s (%s)", stage, st)
	if t := Tail(tail, 2048); t != "" {
		reason += "\nstderr:\n" + t
	}
	s.fail(lux.ExitError, reason)
}

// replyLost ends the run when the protocol could not write to the agent
// because the agent no longer reads its stdin. An agent that exited
// explains itself once its output ends (its exit status and stderr), so
// it gets ExitDrain to exit first.
func (s *Session) replyLost(err error) {
	t := time.NewTimer(s.opts.ExitDrain)
	defer t.Stop()
	select {
	case <-s.proc.Exited():
		return
	case <-t.C:
	case <-s.stop:
	}
	s.fail(lux.ExitError, "cannot write to the agent: it closed its stdin ("+err.Error()+")")
}

// watch ends the run on idle expiry, and once the agent's leader exits
// kills what it left in its group and bounds the wait for its output.
func (s *Session) watch() {
	if s.deadline != nil {
		defer s.deadline.Stop()
	}
	select {
	case <-s.timedOut:
		s.fail(lux.ExitTimeout, fmt.Sprintf("the agent ran longer than its %s time limit", s.opts.Timeout))
		return // fail stops the process group
	case <-s.clock.Expired():
		s.mu.Lock()
		ready := s.ready
		s.mu.Unlock()
		reason := "no event for " + s.clock.Duration().String()
		if ready {
			s.fail(lux.ExitIdleTimeout, reason)
		} else {
			s.fail(lux.ExitError, "agent never became ready: "+reason)
		}
		return // fail stops the process group
	case <-s.proc.Exited():
	case <-s.stop:
		return
	}
	_ = s.proc.Kill()
	t := time.NewTimer(s.opts.ExitDrain)
	defer t.Stop()
	select {
	case <-s.readerDone:
		return
	case <-t.C:
	case <-s.stop:
		return
	}
	s.proc.CloseOutput()
}
