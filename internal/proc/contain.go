package proc

import (
	"context"
	"strconv"
	"syscall"
	"time"
)

// Containment is how the processes a Group's leader starts are found and
// stopped.
type Containment string

// The containments, strongest first.
const (
	// ContainCgroup: the leader starts in a cgroup v2 of its own, and
	// every process it starts stays there whatever it does (setsid, a
	// double fork, a daemon): the cgroup is killed and stopping waits
	// until it is empty. Linux, where this process may create cgroups.
	ContainCgroup Containment = "cgroup"
	// ContainSubreaper: this process is a child subreaper, so the orphans
	// of a group re-parent to it rather than to init; a group's processes
	// are its leader's process tree and every process whose environment
	// carries the group's mark (TreeEnv) with their descendants, and
	// stopping kills them until none remains. A process that both leaves
	// the tree and starts with an environment of its own is not found.
	// Linux without a usable cgroup.
	ContainSubreaper Containment = "subreaper"
	// ContainGroup: only the process group is stopped; a descendant that
	// leaves it (setsid, setpgid) escapes. Systems other than Linux.
	ContainGroup Containment = "process-group"
)

// TreeEnv is the environment variable marking the processes of one group
// under ContainSubreaper.
const TreeEnv = "LUX_PROCESS_TREE"

// KillTimeout bounds how long Stop waits, after SIGKILL, for the last
// contained process to end (a process in uninterruptible sleep, say).
const KillTimeout = 10 * time.Second

// container holds the processes of one Group beyond its process group.
type container interface {
	// started is called once the leader runs; exited is closed once it
	// has been reaped (its pid may then be reused).
	started(pid int, exited <-chan struct{})
	failed()
	// signal sends sig to every contained process.
	signal(sig syscall.Signal)
	// drain kills every contained process until none remains, or ctx ends.
	drain(ctx context.Context) error
	// release frees what the container holds once it is empty.
	release()
}

// groupOnly contains nothing beyond the process group.
type groupOnly struct{ pid int }

func (g *groupOnly) started(pid int, _ <-chan struct{}) {
	g.pid = pid
	tellWatchdog("+ " + strconv.Itoa(pid))
}
func (g *groupOnly) failed() {}
func (*groupOnly) signal(syscall.Signal) {
}
func (*groupOnly) drain(context.Context) error { return nil }
func (g *groupOnly) release()                  { tellWatchdog("- " + strconv.Itoa(g.pid)) }
