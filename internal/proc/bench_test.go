package proc_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/luxeval/lux/internal/proc"
)

// BenchmarkStopAfterExit measures Stop of a group whose leader has
// already exited and left nothing behind, under each containment this
// process can give: what every finished run pays to make sure its agent's
// tree is gone. ns/op is Stop alone; starting and reaping the leader are
// outside the timer.
func BenchmarkStopAfterExit(b *testing.B) {
	for _, c := range []proc.Containment{proc.ContainCgroup, proc.ContainSubreaper, proc.ContainGroup} {
		b.Run(string(c), func(b *testing.B) {
			if c == proc.ContainCgroup && proc.HostContainment() != proc.ContainCgroup {
				b.Skip("this process cannot create a cgroup v2 here")
			}
			proc.ForceContainment(c)
			defer proc.ForceContainment("")
			for b.Loop() {
				b.StopTimer()
				g, err := proc.Start(exec.Command("/bin/true"))
				if err != nil {
					b.Fatal(err)
				}
				<-g.Exited()
				b.StartTimer()
				if err := g.Stop(context.Background(), time.Second); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStopAgain measures Stop of a group already stopped: a driver
// stops its agent once the run has its terminal event and again when the
// run is collected.
func BenchmarkStopAgain(b *testing.B) {
	if proc.HostContainment() != proc.ContainCgroup {
		b.Skip("this process cannot create a cgroup v2 here")
	}
	g, err := proc.Start(exec.Command("/bin/true"))
	if err != nil {
		b.Fatal(err)
	}
	if err := g.Stop(context.Background(), time.Second); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := g.Stop(context.Background(), time.Second); err != nil {
			b.Fatal(err)
		}
	}
}
