package proc

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/luxeval/lux/internal/ctxtest"
)

// A watch of cgroup.events wakes when the cgroup empties, by the kernel's
// notification: with the safety re-read pushed out to an hour, a wait
// that was not woken would end only at the test's one-minute bound.
func TestCgroupWatchWakesWhenEmptied(t *testing.T) {
	if HostContainment() != ContainCgroup {
		t.Skip("this process cannot create a cgroup v2 here")
	}
	defer func(d time.Duration) { eventsRecheck = d }(eventsRecheck)
	eventsRecheck = time.Hour
	ForceContainment(ContainCgroup)
	defer ForceContainment("")

	cmd := exec.Command("/bin/sh", "-c", "exec sleep 300")
	g, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = g.Stop(context.Background(), time.Millisecond) }()
	c := g.box.(*cgroup)
	w, err := watchEvents(filepath.Join(c.dir, "cgroup.events"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	if !w.populated() {
		t.Fatal("the cgroup of a running leader reads as empty")
	}
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	// The first wake-up may be the readiness the file had when it joined
	// the poller: wait until one finds the cgroup empty.
	go func() { _ = syscall.Kill(g.Pid(), syscall.SIGKILL) }()
	for w.populated() {
		if err := w.wait(ctx); err != nil {
			t.Fatalf("no wake-up once the cgroup emptied: %v", err)
		}
	}
	<-g.Exited()
}

// A group's cgroup, once stopped and found empty, is kept for the next
// group (making one and starting a process into a new one costs a run
// about 0.2 ms more than into one that exists): that group contains its
// processes all the same. A cgroup still holding a process is never
// handed on, nor one that was killed through cgroup.kill: on some kernels
// every process started into it afterwards is killed at once.
func TestEmptiedCgroupIsReused(t *testing.T) {
	if HostContainment() != ContainCgroup {
		t.Skip("this process cannot create a cgroup v2 here")
	}
	ForceContainment(ContainCgroup)
	defer ForceContainment("")
	start := func(script string) *Group {
		g, err := Start(exec.Command("/bin/sh", "-c", script))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = g.Stop(context.Background(), time.Millisecond) })
		return g
	}
	first := start("exit 0")
	<-first.Exited()
	if err := first.Stop(context.Background(), time.Millisecond); err != nil {
		t.Fatal(err)
	}
	// The second group can be stopped only by SIGKILL, once it says so.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", "trap '' TERM; echo ready; exec sleep 300")
	cmd.Stdout = w
	second, err := Start(cmd)
	_ = w.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = second.Stop(context.Background(), time.Millisecond) })
	if _, err := bufio.NewReader(r).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	dir := second.box.(*cgroup).dir
	if dir != first.box.(*cgroup).dir {
		t.Errorf("the second group's cgroup is %s, not the first's, emptied", dir)
	}
	// The second group holds a process: a third group gets another cgroup.
	third := start("exit 0")
	<-third.Exited()
	if third.box.(*cgroup).dir == dir {
		t.Errorf("a cgroup holding a process was handed to another group")
	}
	if err := third.Stop(context.Background(), time.Millisecond); err != nil {
		t.Fatal(err)
	}
	// The second group is killed: its cgroup is not handed on, and the
	// next group runs undisturbed.
	if err := second.Stop(context.Background(), time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if !second.box.(*cgroup).killed.Load() {
		t.Fatal("the second group was stopped without cgroup.kill")
	}
	if events, err := readControl(filepath.Join(dir, "cgroup.events")); err == nil && isPopulated(events) {
		t.Errorf("the cgroup still holds a process after Stop")
	}
	for range 2 {
		next := start("exit 3")
		<-next.Exited()
		if next.box.(*cgroup).dir == dir {
			t.Errorf("a cgroup killed through cgroup.kill was handed to another group")
		}
		if st := next.Status(); st != (Status{Exited: true, Code: 3}) {
			t.Errorf("a group started after a kill ended with %v, not exit code 3", st)
		}
		if err := next.Stop(context.Background(), time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
}

// Two Stops of one group at once (a driver stops its agent after the
// terminal event and again when the run is collected) never reach the
// cgroup once it has been handed to the next group: that group's process
// is neither killed nor waited on by them.
func TestConcurrentStopsSpareTheNextGroup(t *testing.T) {
	if HostContainment() != ContainCgroup {
		t.Skip("this process cannot create a cgroup v2 here")
	}
	ForceContainment(ContainCgroup)
	defer ForceContainment("")
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	for range 200 {
		g, err := Start(exec.Command("/bin/sh", "-c", "exit 0"))
		if err != nil {
			t.Fatal(err)
		}
		stopped := make(chan error, 2)
		go func() { stopped <- g.Stop(ctx, time.Second) }()
		go func() { <-g.Exited(); stopped <- g.Stop(ctx, time.Second) }()
		// Once one Stop has returned, the cgroup may be handed on while
		// the other is still under way.
		if err := <-stopped; err != nil {
			t.Fatal(err)
		}
		next, err := Start(exec.Command("/bin/sh", "-c", "exit 3"))
		if err != nil {
			t.Fatal(err)
		}
		if err := <-stopped; err != nil {
			t.Fatal(err)
		}
		<-next.Exited()
		if st := next.Status(); st != (Status{Exited: true, Code: 3}) {
			t.Fatalf("the next group's leader ended with %v, not exit code 3", st)
		}
		if err := next.Stop(ctx, time.Second); err != nil {
			t.Fatal(err)
		}
	}
}
