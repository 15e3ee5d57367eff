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
	"syscall"
	"time"
)

// cgroup is a group's own cgroup v2.
type cgroup struct {
	dir  string
	fd   int
	once sync.Once
}

func (c *cgroup) started(int, <-chan struct{}) { _ = syscall.Close(c.fd) }

func (c *cgroup) failed() {
	_ = syscall.Close(c.fd)
	_ = os.Remove(c.dir)
}

func (c *cgroup) pids() []int {
	data, _ := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
	var out []int
	for f := range strings.FieldsSeq(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

func (c *cgroup) signal(sig syscall.Signal) {
	if sig == syscall.SIGKILL && os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0) == nil {
		return
	}
	for _, pid := range c.pids() {
		_ = syscall.Kill(pid, sig)
	}
}

// populated reads cgroup.events; a cgroup that is gone is empty.
func (c *cgroup) populated() bool {
	data, err := os.ReadFile(filepath.Join(c.dir, "cgroup.events"))
	if err != nil {
		return false
	}
	return bytes.Contains(data, []byte("populated 1"))
}

func (c *cgroup) drain(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, KillTimeout)
	defer cancel()
	w := watchFile(filepath.Join(c.dir, "cgroup.events"))
	defer w.close()
	for {
		c.signal(syscall.SIGKILL)
		if !c.populated() {
			return nil
		}
		if err := w.wait(ctx); err != nil {
			return fmt.Errorf("proc: processes %v of cgroup %s still alive after SIGKILL: %w", c.pids(), c.dir, err)
		}
	}
}

func (c *cgroup) release() { c.once.Do(func() { _ = os.Remove(c.dir) }) }

// fileWatch wakes on each change of a file (inotify), or every few
// milliseconds where inotify is not available.
type fileWatch struct{ f *os.File }

func watchFile(path string) *fileWatch {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return &fileWatch{}
	}
	if _, err := syscall.InotifyAddWatch(fd, path, syscall.IN_MODIFY); err != nil {
		_ = syscall.Close(fd)
		return &fileWatch{}
	}
	return &fileWatch{f: os.NewFile(uintptr(fd), "inotify")}
}

func (w *fileWatch) wait(ctx context.Context) error {
	if w.f == nil {
		return pause(ctx, 5*time.Millisecond)
	}
	// A change is noticed at once; the file is looked at again every 50ms
	// all the same, should a notification be lost.
	_ = w.f.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	stop := context.AfterFunc(ctx, func() { _ = w.f.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	var buf [4096]byte
	_, err := w.f.Read(buf[:])
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		return pause(ctx, 5*time.Millisecond)
	}
	return nil
}

func (w *fileWatch) close() {
	if w.f != nil {
		_ = w.f.Close()
	}
}

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
