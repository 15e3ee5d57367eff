// Package proc starts commands in their own process group and stops the
// whole group, so that nothing a command spawned outlives it.
//
// [Start] launches an [exec.Cmd] as the leader of a new process group;
// [Group.Stop] sends SIGTERM to the group, waits a grace period for the
// leader to exit, then sends SIGKILL to the group, which also reaches
// descendants left behind by a leader that already exited. [Run] runs a
// command to completion with a timeout, a minimal environment, optional
// standard input and output capped at a number of bytes.
//
// Beyond the process group, each Group is contained as strongly as the
// system allows ([HostContainment]): on Linux in a cgroup v2 of its own
// where this process may create one, else as a child subreaper that finds
// the group's processes by ancestry and an environment mark; elsewhere
// only the process group is stopped, and a descendant that leaves it
// (setsid, setpgid) escapes. See [Containment] for what each guarantees.
// On Linux the leader also gets SIGKILL when this process dies
// (Pdeathsig), and a watchdog process kills every cgroup (or, without
// one, every process group) this process still had when it ended, however
// it ended.
package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/luxeval/lux/internal/clock"
)

// DefaultPath is the PATH of a child that does not inherit the host
// environment: the usual system directories, identical on every machine.
const DefaultPath = "/usr/local/bin:/usr/bin:/bin"

// DefaultGrace is how long Stop waits after SIGTERM before SIGKILL when the
// caller gives no grace.
const DefaultGrace = 5 * time.Second

// Group is a started command leading its own process group.
type Group struct {
	cmd    *exec.Cmd
	pid    int
	exited chan struct{}
	box    container

	mu   sync.Mutex
	gone bool // the group was found empty after the leader exited

	state   *os.ProcessState // set before exited is closed
	waitErr error
}

// Start starts cmd as the leader of a new process group (Setpgid). Give cmd
// *os.File standard streams (or nil): a command whose streams are other
// writers keeps Exited from firing until its copies finish, and a
// descendant holding the stream open would delay it further.
func Start(cmd *exec.Cmd) (*Group, error) { return StartWith(cmd, (*exec.Cmd).Start) }

// StartWith is Start with start in place of cmd.Start: a sandbox's start
// (sandbox.Handle.Start), which must start cmd and return once it runs.
func StartWith(cmd *exec.Cmd, start func(*exec.Cmd) error) (*Group, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pgid = 0
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = time.Second
	}
	box, err := prepare(cmd)
	if err != nil {
		return nil, err
	}
	if err := start(cmd); err != nil {
		box.failed()
		return nil, err
	}
	g := &Group{cmd: cmd, pid: cmd.Process.Pid, exited: make(chan struct{}), box: box}
	box.started(g.pid, g.exited)
	go func() {
		err := cmd.Wait()
		g.mu.Lock()
		g.state, g.waitErr = cmd.ProcessState, err
		g.mu.Unlock()
		close(g.exited)
	}()
	return g, nil
}

// Pid is the leader's process id, which is also the group id.
func (g *Group) Pid() int { return g.pid }

// Exited is closed once the leader has exited and been reaped.
func (g *Group) Exited() <-chan struct{} { return g.exited }

// Status is how the leader ended. It is the zero Status until Exited is closed.
func (g *Group) Status() Status {
	select {
	case <-g.exited:
	default:
		return Status{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return statusOf(g.state)
}

// Signal sends sig to every process in the group, and to every process
// its containment holds beyond it. A group that no longer has any process
// is not an error.
func (g *Group) Signal(sig syscall.Signal) error {
	g.box.signal(sig)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gone {
		return nil
	}
	err := syscall.Kill(-g.pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		// Once the leader is reaped and the group is empty, its id may be
		// reused: never signal it again.
		select {
		case <-g.exited:
			g.gone = true
		default:
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("proc: signal group %d: %w", g.pid, err)
	}
	return nil
}

// Kill sends SIGKILL to the whole group.
func (g *Group) Kill() error { return g.Signal(syscall.SIGKILL) }

// Stop stops the whole group: SIGTERM, then, once the leader has exited or
// grace has passed (DefaultGrace when grace is zero or less) on ctx's
// clock (see package clock: the system's unless a test put a manual one
// there), SIGKILL to every process still in the group or its containment,
// so descendants never outlive the leader. It returns when the leader has
// been reaped and no contained process remains, or with an error if ctx
// ends first or a contained process outlives KillTimeout (everything has
// been sent SIGKILL by then). Safe to call more than once and
// concurrently.
func (g *Group) Stop(ctx context.Context, grace time.Duration) error {
	if grace <= 0 {
		grace = DefaultGrace
	}
	_ = g.Signal(syscall.SIGTERM)
	g.WaitExit(ctx, grace)
	_ = g.Kill()
	select {
	case <-g.exited:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := g.box.drain(ctx); err != nil {
		return err
	}
	g.box.release()
	return nil
}

// WaitExit waits until the leader has exited, d has passed on ctx's
// clock, or ctx ends, whichever comes first; it reports whether the
// leader exited.
func (g *Group) WaitExit(ctx context.Context, d time.Duration) bool {
	select {
	case <-g.exited:
		return true
	default:
	}
	passed := make(chan struct{})
	t := clock.From(ctx).AfterFunc(d, func() { close(passed) })
	defer t.Stop()
	select {
	case <-g.exited:
		return true
	case <-passed:
	case <-ctx.Done():
	}
	select {
	case <-g.exited:
		return true
	default:
		return false
	}
}

// Status is how a process ended.
type Status struct {
	Exited bool   // the process exited by itself; Code is meaningful
	Code   int    // exit code; -1 when killed by a signal or not ended
	Signal string // the signal that killed it, e.g. "SIGKILL"; "" when it exited
}

// String formats s as "code=N, signal=S" with "none" for a missing signal.
func (s Status) String() string {
	sig := s.Signal
	if sig == "" {
		sig = "none"
	}
	return fmt.Sprintf("code=%d, signal=%s", s.Code, sig)
}

func statusOf(ps *os.ProcessState) Status {
	if ps == nil {
		return Status{Code: -1}
	}
	st := Status{Code: ps.ExitCode(), Exited: ps.Exited()}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		st.Signal = SignalName(ws.Signal())
	}
	return st
}

// SignalName is the conventional name of sig, such as "SIGTERM".
func SignalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGBUS:
		return "SIGBUS"
	case syscall.SIGFPE:
		return "SIGFPE"
	case syscall.SIGILL:
		return "SIGILL"
	case syscall.SIGUSR1:
		return "SIGUSR1"
	case syscall.SIGUSR2:
		return "SIGUSR2"
	case syscall.SIGXCPU:
		return "SIGXCPU"
	case syscall.SIGXFSZ:
		return "SIGXFSZ"
	}
	return fmt.Sprintf("signal %d", int(sig))
}
