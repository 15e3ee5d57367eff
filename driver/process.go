package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luxeval/lux/internal/proc"
	"github.com/luxeval/lux/sandbox"
)

// DefaultStderrTail is how many bytes of an agent's stderr a Process keeps
// for StderrTail when its spec does not say.
const DefaultStderrTail = 8 << 10

// DefaultKillGrace is the time between SIGTERM and SIGKILL when an agent's
// process group is stopped.
const DefaultKillGrace = 5 * time.Second

// DefaultStdinGrace is the longest Stop waits, once it has closed an
// agent's stdin, for the agent to exit by itself before SIGTERM.
const DefaultStdinGrace = 2 * time.Second

// ExitStatus is how a process ended: Exited with Code, or killed by Signal.
// Its String form is "code=N, signal=S".
type ExitStatus = proc.Status

// ProcessSpec is a process to start. The zero value of every field but
// Path means its default.
type ProcessSpec struct {
	// Path is the executable: a path, or a name looked up on this
	// process's PATH (not the child's).
	Path string
	Args []string // arguments, not including the program name
	Dir  string   // working directory; empty means this process's
	// Env is the child's exact environment; build it with BuildEnv. Nil
	// is an empty environment, never the host's.
	Env []string
	// Stderr receives a copy of everything the process writes to its
	// standard error; nil drops it (StderrTail still keeps the tail).
	Stderr io.Writer
	// StderrTail is how many trailing bytes of stderr to keep;
	// zero means DefaultStderrTail.
	StderrTail int
	// Sandbox, when set, starts the process inside the run's sandbox (see
	// package sandbox); StartSession sets it from its context.
	Sandbox *sandbox.Run
	// Readable are files or directories the process must read outside
	// its workspace (a prompt file, a script), and URLs the endpoints it
	// must reach: a sandbox grants them.
	Readable []string
	URLs     []string
	// Ready, when set, is called once the process is ready to run and
	// before it runs (before the sandbox's Gate, see sandbox.Run.Gate):
	// the driver's last step of preparation, done while the process was
	// set up, such as a file the agent reads written meanwhile. Its
	// error refuses the start.
	Ready func() error
}

// Process is a started agent: the leader of its own process group, with
// pipes to its standard streams.
type Process struct {
	group     *proc.Group
	stdin     *Stdin
	stdout    *os.File
	stderr    *os.File
	errDone   chan struct{}
	tail      *tailBuffer
	closeOnce sync.Once
	ending    atomic.Bool     // EndInput was called: stdin's end is the stop's own
	box       *sandbox.Handle // nil when not sandboxed
}

// StartError reports an agent process that could not be started. Its
// message, "failed to start <command>: <cause>", has no package prefix:
// a driver adds its own ("subprocess: failed to start ./agent: ...").
type StartError struct {
	Command string
	Err     error
}

func (e *StartError) Error() string { return "failed to start " + e.Command + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *StartError) Unwrap() error { return e.Err }

// StartProcess starts spec in its own process group. An error is a
// *StartError naming the command. It is StartProcessContext with the
// background context.
func StartProcess(spec ProcessSpec) (*Process, error) {
	return StartProcessContext(context.Background(), spec)
}

// StartProcessContext is StartProcess; ctx is the context the sandbox's
// Gate gets (see sandbox.Run.Gate): the start returns once the Gate has
// let the agent go.
func StartProcessContext(ctx context.Context, spec ProcessSpec) (*Process, error) {
	if spec.Path == "" {
		return nil, &StartError{Command: `""`, Err: errors.New("no command")}
	}
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			_ = f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, &StartError{Command: spec.Path, Err: err}
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, &StartError{Command: spec.Path, Err: err}
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, &StartError{Command: spec.Path, Err: err}
	}
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	var box *sandbox.Handle
	if spec.Sandbox != nil {
		if cmd.Err == nil {
			// Scripts the command runs (python3 /opt/agent/agent.py) are
			// the command's as much as its executable is.
			readable := append(Scripts(spec.Args), spec.Readable...)
			box, err = spec.Sandbox.Wrap(cmd, sandbox.Extra{Readable: readable, URLs: spec.URLs})
		}
		if err != nil {
			_, _, _ = inR.Close(), outW.Close(), errW.Close()
			closeAll()
			return nil, &StartError{Command: spec.Path, Err: err}
		}
	}
	g, err := proc.StartWith(cmd, func(cmd *exec.Cmd) error { return box.StartReady(ctx, cmd, spec.Ready) })
	_, _, _ = inR.Close(), outW.Close(), errW.Close()
	if err != nil {
		box.Release()
		closeAll()
		return nil, &StartError{Command: spec.Path, Err: err}
	}
	tailMax := spec.StderrTail
	if tailMax <= 0 {
		tailMax = DefaultStderrTail
	}
	p := &Process{
		group:   g,
		stdin:   &Stdin{f: inW},
		stdout:  outR,
		stderr:  errR,
		errDone: make(chan struct{}),
		tail:    &tailBuffer{max: tailMax},
		box:     box,
	}
	go func() {
		defer close(p.errDone)
		var w io.Writer = p.tail
		if spec.Stderr != nil {
			w = io.MultiWriter(p.tail, &lenientWriter{w: spec.Stderr})
		}
		buf := copyBufs.Get().(*[]byte)
		// Only Read: an *os.File's WriteTo would copy through a buffer
		// of its own.
		_, _ = io.CopyBuffer(w, struct{ io.Reader }{errR}, *buf)
		copyBufs.Put(buf)
	}()
	return p, nil
}

// copyBufs are the buffers of the stderr copies, reused from process to
// process.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// Pid is the process id of the leader, which is also its group id.
func (p *Process) Pid() int { return p.group.Pid() }

// Stdin is the writer to the process's standard input.
func (p *Process) Stdin() *Stdin { return p.stdin }

// Stdout is the process's standard output. It reaches end of file when
// every process holding it has closed it, or once CloseOutput is called.
func (p *Process) Stdout() io.Reader { return p.stdout }

// StderrTail returns the last bytes the process wrote to stderr.
func (p *Process) StderrTail() string { return p.tail.String() }

// Exited is closed once the leader has exited.
func (p *Process) Exited() <-chan struct{} { return p.group.Exited() }

// Status is how the leader ended; the zero ExitStatus until Exited is closed.
func (p *Process) Status() ExitStatus { return p.group.Status() }

// Kill sends SIGKILL to the whole process group at once.
func (p *Process) Kill() error { return p.group.Kill() }

// Stop stops the whole process group in the order the MCP specification
// gives for stdio servers, which suits every agent that reads stdin:
//
//  1. stdin is closed, and the agent has grace (at most DefaultStdinGrace)
//     to exit by itself (see EndInput); an agent whose stdin was closed
//     earlier with Stdin().Close (given all its input at the start) has
//     had its end of input long since, and skips this step unless
//     EndInput was called;
//  2. SIGTERM to the group, and grace (DefaultKillGrace when zero) to exit;
//  3. SIGKILL to the group and everything its containment holds, so no
//     descendant outlives it.
//
// Every wait is on ctx's clock (package clock: the system's unless a test
// put a manual one there), and ends early when the leader exits. It
// returns once the leader is reaped, or with ctx.Err(). This is the one
// way every driver stops its agent.
func (p *Process) Stop(ctx context.Context, grace time.Duration) error {
	if grace <= 0 {
		grace = DefaultKillGrace
	}
	if p.ending.Load() || !p.stdin.isClosed() {
		p.EndInput(ctx, min(grace, DefaultStdinGrace))
	}
	err := p.group.Stop(ctx, grace)
	if err == nil {
		p.box.Release()
	}
	return err
}

// LimitHit names the sandbox limit the process ran into ("the agent
// exceeded the sandbox's file size limit ..."), or "" when it was not
// sandboxed or hit none known.
func (p *Process) LimitHit() string {
	if p.box == nil {
		return ""
	}
	return p.box.LimitHit(p.Status().Signal)
}

// EndInput closes stdin (if it is open) and waits until the agent exits,
// grace passes on ctx's clock, or ctx ends: the first step of Stop, and
// the grace a caller gives an agent that reported its own end. Once it
// has been called, every Stop waits its own stdin grace too before any
// signal, so a second stopper never skips the grace.
func (p *Process) EndInput(ctx context.Context, grace time.Duration) {
	p.ending.Store(true)
	_ = p.stdin.Close()
	p.group.WaitExit(ctx, grace)
}

// WaitOutput waits up to d for stderr to reach end of file (every holder
// closed it), then closes both output pipes, which ends any read still
// blocked on them: a descendant that escaped the process group cannot
// hold the harness.
func (p *Process) WaitOutput(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.errDone:
	case <-t.C:
	}
	p.CloseOutput()
}

// waitStderr waits up to d for everything written to stderr to be copied.
func (p *Process) waitStderr(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.errDone:
	case <-t.C:
	}
}

// CloseOutput closes the harness's ends of stdout and stderr; blocked reads
// return at once.
func (p *Process) CloseOutput() {
	p.closeOnce.Do(func() {
		_ = p.stdout.Close()
		_ = p.stderr.Close()
	})
}

// Stdin writes to an agent's standard input. Writes are serialized, so a
// protocol may write replies while answers are written too.
type Stdin struct {
	f      *os.File
	mu     sync.Mutex
	closed bool
	cmu    sync.Mutex
}

// ErrStdinClosed reports a write to a closed stdin.
var ErrStdinClosed = errors.New("driver: stdin closed")

// Write writes b whole, giving up when ctx ends.
func (s *Stdin) Write(ctx context.Context, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed() {
		return ErrStdinClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	interrupted := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_ = s.f.SetWriteDeadline(time.Unix(1, 0))
		close(interrupted)
	})
	_, err := s.f.Write(b)
	if !stop() {
		// ctx ended during the write: wait until the deadline is set, so
		// that clearing it below is the last word.
		<-interrupted
		if errors.Is(err, os.ErrDeadlineExceeded) {
			err = ctx.Err()
		}
	}
	_ = s.f.SetWriteDeadline(time.Time{})
	if err != nil {
		if s.isClosed() {
			return ErrStdinClosed
		}
		return fmt.Errorf("driver: write stdin: %w", err)
	}
	return nil
}

// WriteLine writes line followed by a newline, in one write.
func (s *Stdin) WriteLine(ctx context.Context, line []byte) error {
	b := make([]byte, 0, len(line)+1)
	return s.Write(ctx, append(append(b, line...), '\n'))
}

// WriteJSON writes v as one line of JSON.
func (s *Stdin) WriteJSON(ctx context.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("driver: encode stdin line: %w", err)
	}
	return s.WriteLine(ctx, b)
}

// Close closes stdin; the agent reads end of file. Safe to call more than once.
func (s *Stdin) Close() error {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.f.Close()
}

func (s *Stdin) isClosed() bool {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	return s.closed
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
	}
	return string(b)
}

// lenientWriter keeps copying after its writer fails, so that a failing
// stderr sink never blocks the agent.
type lenientWriter struct {
	w      io.Writer
	failed bool
}

func (l *lenientWriter) Write(p []byte) (int, error) {
	if !l.failed {
		if _, err := l.w.Write(p); err != nil {
			l.failed = true
		}
	}
	return len(p), nil
}
