package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkStart measures what the sandbox adds to starting an agent:
// /bin/true started directly, and confined at each level, by the start
// on a confined thread (the default) and through the helper (this test
// binary re-executed: one more execve of a Go binary, its runtime start
// and package inits). Each start waits for /bin/true to end.
func BenchmarkStart(b *testing.B) {
	dir := b.TempDir()
	ws, scratch := filepath.Join(dir, "ws"), filepath.Join(dir, "scratch")
	for _, d := range []string{ws, scratch} {
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	// The -no-cgroup variants set no process or memory limit, so no
	// cgroup is joined; -pids-cgroup and -memory-cgroup join one.
	for _, tc := range []struct {
		name   string
		level  Level
		procs  int64
		memory int64
		helper bool
	}{
		{"direct", "", 0, 0, false}, {"none", LevelNone, 0, 0, false},
		{"limits-no-cgroup", LevelLimits, -1, -1, false},
		{"limits-pids-cgroup", LevelLimits, 0, -1, false}, {"limits-memory-cgroup", LevelLimits, -1, 0, false},
		{"limits", LevelLimits, 0, 0, false},
		{"landlock-no-cgroup", LevelLandlock, -1, -1, false}, {"landlock", LevelLandlock, 0, 0, false},
		{"helper-limits-no-cgroup", LevelLimits, -1, -1, true}, {"helper-landlock", LevelLandlock, 0, 0, true},
	} {
		level := tc.level
		b.Run(tc.name, func(b *testing.B) {
			forceHelper.Store(tc.helper)
			defer forceHelper.Store(false)
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				cmd.Env = []string{"PATH=/usr/bin:/bin"}
				var h *Handle
				if level != "" {
					r := &Run{Config: Config{Level: level, Limits: Limits{Processes: tc.procs, MemoryBytes: tc.memory}}, Workspace: ws, Scratch: scratch}
					var err error
					if h, err = r.Wrap(cmd, Extra{}); err != nil {
						b.Fatal(err)
					}
				}
				if err := h.Start(cmd); err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
				h.Release()
			}
		})
	}
}

// BenchmarkWrap measures the harness's side alone: the spec of a
// landlock-level start and its memory cgroup, taken and released (no
// process is started).
func BenchmarkWrap(b *testing.B) {
	dir := b.TempDir()
	r := &Run{Config: Config{Limits: Limits{Processes: -1}}, Workspace: dir, Scratch: dir}
	for b.Loop() {
		cmd := exec.Command("/bin/true")
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		h, err := r.Wrap(cmd, Extra{})
		if err != nil {
			b.Fatal(err)
		}
		h.Release()
	}
}

// BenchmarkSeccompFilter measures what the seccomp filter adds to a
// start: a locked thread made and ended with no_new_privs set, without
// and with the filter installed on it (the agent's process inherits it
// from that thread).
func BenchmarkSeccompFilter(b *testing.B) {
	if err := seccompProbe(); err != nil {
		b.Skip(err)
	}
	for _, filter := range []bool{false, true} {
		name := "thread"
		if filter {
			name = "thread+filter"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				done := make(chan error, 1)
				onOwnThread(func() {
					err := noNewPrivs()
					if err == nil && filter {
						err = installFilter(true)
					}
					done <- err
				})
				if err := <-done; err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStartGated measures /bin/true started one after the other at
// level landlock as an orchestrator can with Run.Gate: each start is
// prepared (its process confined and stopped before its exec) while the
// previous agent runs, and let go through its Gate once that agent has
// ended. ns/op is the time from one agent to the next, to compare with
// BenchmarkStart's direct and landlock.
func BenchmarkStartGated(b *testing.B) {
	dir := b.TempDir()
	ws, scratch := filepath.Join(dir, "ws"), filepath.Join(dir, "scratch")
	for _, d := range []string{ws, scratch} {
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	type prepared struct {
		cmd     *exec.Cmd
		h       *Handle
		release chan struct{}
		started chan error
	}
	prepare := func() *prepared {
		p := &prepared{cmd: exec.Command("/bin/true"), release: make(chan struct{}), started: make(chan error, 1)}
		p.cmd.Env = []string{"PATH=/usr/bin:/bin"}
		r := &Run{Config: Config{Level: LevelLandlock}, Workspace: ws, Scratch: scratch,
			Gate: func(ctx context.Context) error { <-p.release; return nil }}
		var err error
		if p.h, err = r.Wrap(p.cmd, Extra{}); err != nil {
			b.Fatal(err)
		}
		go func() { p.started <- p.h.StartContext(context.Background(), p.cmd) }()
		return p
	}
	next := prepare()
	for b.Loop() {
		cur := next
		close(cur.release)
		if err := <-cur.started; err != nil {
			b.Fatal(err)
		}
		next = prepare() // while cur runs
		if err := cur.cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		cur.h.Release()
	}
	b.StopTimer()
	close(next.release)
	if err := <-next.started; err == nil {
		_ = next.cmd.Wait()
	}
	next.h.Release()
}
