package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// cgroup is a group's own cgroup v2.
type cgroup struct {
	dir    string
	fd     int
	exited <-chan struct{} // closed once the leader is reaped
	// mu serializes signal, drain and release: once released (and maybe
	// handed to another group) the cgroup is never signalled or waited on
	// again by this one.
	mu       sync.Mutex
	released bool
	// emptied says the cgroup was found empty after the leader was
	// reaped: nothing can enter it any more, so it is never read or
	// signalled again.
	emptied atomic.Bool
	// killed says cgroup.kill was written: on some kernels every process
	// started into the cgroup afterwards is killed at once, so it is
	// never handed to another group.
	killed atomic.Bool
}

func (c *cgroup) started(_ int, exited <-chan struct{}) {
	c.exited = exited
	_ = syscall.Close(c.fd)
}

func (c *cgroup) failed() {
	_ = syscall.Close(c.fd)
	_ = os.Remove(c.dir)
}

func (c *cgroup) pids() []int {
	data, _ := readControl(filepath.Join(c.dir, "cgroup.procs"))
	var out []int
	for f := range strings.FieldsSeq(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

func (c *cgroup) signal(sig syscall.Signal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.signalLocked(sig)
}

func (c *cgroup) signalLocked(sig syscall.Signal) {
	if c.released || c.emptied.Load() || c.found() {
		return
	}
	if sig == syscall.SIGKILL {
		c.killed.Store(true)
		if writeControl(filepath.Join(c.dir, "cgroup.kill"), "1") == nil {
			return
		}
	}
	for _, pid := range c.pids() {
		_ = syscall.Kill(pid, sig)
	}
}

// found reports whether the cgroup is empty once the leader has been
// reaped, and if so marks it emptied.
func (c *cgroup) found() bool {
	select {
	case <-c.exited:
	default:
		return false
	}
	if c.populated() {
		return false
	}
	c.emptied.Store(true)
	return true
}

// populated reads cgroup.events; a cgroup that is gone is empty.
func (c *cgroup) populated() bool {
	data, err := readControl(filepath.Join(c.dir, "cgroup.events"))
	if err != nil {
		return false
	}
	return isPopulated(data)
}

// readControl reads a cgroup control file whole. Such files are read
// and written with plain system calls: through an *os.File each would also
// join and leave the runtime's poller, as they can be polled.
func readControl(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	buf := make([]byte, 0, 512)
	for {
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// writeControl writes s to a cgroup control file.
func writeControl(path, s string) error {
	fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	for {
		_, err = syscall.Write(fd, []byte(s))
		if err != syscall.EINTR {
			return err
		}
	}
}

func isPopulated(events []byte) bool { return bytes.Contains(events, []byte("populated 1")) }

// drain kills the cgroup until it is empty. A group whose leader left
// nothing behind (the usual case) costs one read of cgroup.events; only a
// cgroup still populated is watched.
func (c *cgroup) drain(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released || c.emptied.Load() || c.found() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, KillTimeout)
	defer cancel()
	w, err := watchEvents(filepath.Join(c.dir, "cgroup.events"))
	if err != nil {
		return fmt.Errorf("proc: watch cgroup %s: %w", c.dir, err)
	}
	defer w.close()
	for {
		c.signalLocked(syscall.SIGKILL)
		if !w.populated() {
			c.emptied.Store(true)
			return nil
		}
		if err := w.wait(ctx); err != nil {
			return fmt.Errorf("proc: processes %v of cgroup %s still alive after SIGKILL: %w", c.pids(), c.dir, err)
		}
	}
}

// release keeps an emptied cgroup for the next group, or removes it.
func (c *cgroup) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		return
	}
	c.released = true
	if !c.emptied.Load() || c.killed.Load() || !keepCgroup(c.dir) {
		_ = os.Remove(c.dir)
	}
}

// maxKeptCgroups bounds the emptied cgroups kept for later groups.
const maxKeptCgroups = 64

// kept are emptied cgroups, ready for later groups: starting a process
// into a new cgroup costs about 0.2 ms more than into one that exists
// (the kernel sets up the new cgroup's css_set), and making and removing
// it costs more. The watchdog removes them when this process ends.
var kept struct {
	mu   sync.Mutex
	dirs []string
}

// keepCgroup keeps the emptied cgroup dir for a later group, unless
// controllers are enabled below this process's cgroup: a controller's
// counters (memory.events, pids.peak, ...) would then carry one group's
// history into the next. It reports whether it kept it.
func keepCgroup(dir string) bool {
	if ctl, err := readControl(filepath.Join(filepath.Dir(dir), "cgroup.subtree_control")); err != nil || len(bytes.TrimSpace(ctl)) > 0 {
		return false
	}
	kept.mu.Lock()
	defer kept.mu.Unlock()
	if len(kept.dirs) >= maxKeptCgroups {
		return false
	}
	kept.dirs = append(kept.dirs, dir)
	return true
}

// reuseCgroup returns a kept cgroup, or "" when there is none.
func reuseCgroup() string {
	kept.mu.Lock()
	defer kept.mu.Unlock()
	n := len(kept.dirs)
	if n == 0 {
		return ""
	}
	dir := kept.dirs[n-1]
	kept.dirs = kept.dirs[:n-1]
	return dir
}

// eventsRecheck is how often a watch reads cgroup.events again with no
// wake-up, a safety net should one be lost; a variable for tests.
var eventsRecheck = time.Second

// eventsWatch wakes on each change of an open cgroup.events. The kernel
// wakes every poller of the open file when its values change, and the
// runtime's poller (epoll) reports that wake-up as readiness, so a waiter
// sleeps until the cgroup changes. (An inotify watch does the same, but
// closing an inotify instance waits for an RCU grace period: several
// milliseconds for every run.)
type eventsWatch struct {
	f   *os.File
	raw syscall.RawConn
	buf [256]byte
}

func watchEvents(path string) (*eventsWatch, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	// A non-blocking descriptor joins the runtime's poller.
	f := os.NewFile(uintptr(fd), path)
	raw, err := f.SyscallConn()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return &eventsWatch{f: f, raw: raw}, nil
}

// populated reads the file again from its start; one that cannot be read
// (the cgroup is gone) is empty.
func (w *eventsWatch) populated() bool {
	n, err := w.f.ReadAt(w.buf[:], 0)
	if n == 0 && err != nil {
		return false
	}
	return isPopulated(w.buf[:n])
}

// wait returns after the next wake-up of the file (the first may be the
// readiness it had when it joined the poller), after eventsRecheck, or
// with ctx's error once ctx ends.
func (w *eventsWatch) wait(ctx context.Context) error {
	_ = w.f.SetReadDeadline(time.Now().Add(eventsRecheck))
	stop := context.AfterFunc(ctx, func() { _ = w.f.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	waited := false
	// Read calls the function again each time the file turns ready.
	err := w.raw.Read(func(uintptr) bool {
		done := waited
		waited = true
		return done
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		// Not pollable here: look again after a pause.
		return pause(ctx, 5*time.Millisecond)
	}
	return nil
}

func (w *eventsWatch) close() { _ = w.f.Close() }

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
