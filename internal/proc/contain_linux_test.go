package proc_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/internal/proc"
)

// escapes are agents whose descendants leave the process group. Each
// prints the pid of its escaped descendant on stdout.
var escapes = []struct{ name, script string }{
	// A double fork into a new session, with every stream closed: the
	// escapee is re-parented away from the leader at once.
	{"setsid double fork", `( setsid sh -c 'echo $$; exec sleep 300 </dev/null >/dev/null 2>&1' & ); exec sleep 300`},
	// A daemon in a session of its own that keeps the leader's stdout.
	{"daemon holding stdout", `setsid sh -c 'echo $$; exec sleep 300' & exec sleep 300`},
	// The leader exits at once and leaves its daemon behind.
	{"leader gone, daemon left", `setsid sh -c 'echo $$; exec sleep 300' &`},
}

// startEscape starts an escaping agent under containment c and returns its
// group and the escaped descendant's pid.
func startEscape(t *testing.T, c proc.Containment, script string) (*proc.Group, int) {
	t.Helper()
	proc.ForceContainment(c)
	t.Cleanup(func() { proc.ForceContainment("") })
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Stdout = w
	g, err := proc.Start(cmd)
	_ = w.Close()
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Stop(context.Background(), time.Millisecond) })
	line, err := bufio.NewReader(r).ReadString('\n')
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	require.NoError(t, err, "agent printed %q", line)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // where it escaped
	require.True(t, proc.Alive(pid))
	return g, pid
}

// Under a cgroup and under the subreaper, nothing a group started survives
// Stop, whatever it did to leave the group; with the process group alone
// the escapee survives, as documented.
func TestStopLeavesNoSurvivor(t *testing.T) {
	for _, c := range []proc.Containment{proc.ContainCgroup, proc.ContainSubreaper, proc.ContainGroup} {
		for _, e := range escapes {
			t.Run(string(c)+"/"+e.name, func(t *testing.T) {
				if c == proc.ContainCgroup && proc.HostContainment() != proc.ContainCgroup {
					t.Skip("this process cannot create a cgroup v2 here")
				}
				g, pid := startEscape(t, c, e.script)
				require.NoError(t, g.Stop(context.Background(), 50*time.Millisecond))
				survivors := 0
				if proc.Alive(pid) {
					survivors = 1
				}
				// Checked the moment Stop returns: it waits until the tree is empty.
				want := 0
				if c == proc.ContainGroup {
					want = 1
				}
				assert.Equal(t, want, survivors, "survivors of Stop under %s", c)
			})
		}
	}
}

// A Kill alone (what follows the leader's exit) reaches the escapee under
// a cgroup too.
func TestKillReachesTheCgroup(t *testing.T) {
	if proc.HostContainment() != proc.ContainCgroup {
		t.Skip("this process cannot create a cgroup v2 here")
	}
	g, pid := startEscape(t, proc.ContainCgroup, escapes[1].script)
	require.NoError(t, g.Kill())
	ended(t, pid, "the escapee survived the cgroup's kill")
}
