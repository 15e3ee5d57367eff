package proc

import (
	"context"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
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
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
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
