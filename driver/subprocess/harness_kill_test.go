//go:build linux

package subprocess_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/internal/proc"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// harnessEnv makes the test binary a harness running a suite (see
// runHarness): LUX_TEST_HARNESS=<runs root>, LUX_TEST_FIFO=<fifo the
// agents report their pids to>, LUX_TEST_CONTAIN=<forced containment>.
const harnessEnv = "LUX_TEST_HARNESS"

// escapingAgents print their own pid and the pid of a descendant that left
// their process group to the fifo, become ready, and wait.
var escapingAgents = map[string]string{
	"double-fork": `( setsid sh -c 'echo "escapee $$" > "$FIFO"; exec sleep 300' </dev/null >/dev/null 2>&1 & )`,
	"daemon":      `setsid sh -c 'echo "escapee $$" > "$FIFO"; exec sleep 300' &`,
}

func runHarness() int {
	proc.ForceContainment(proc.Containment(os.Getenv("LUX_TEST_CONTAIN")))
	reg := lux.NewRegistry()
	if err := reg.RegisterDriver(subprocess.Plugin()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var cases []*lux.Case
	for id, escape := range escapingAgents {
		script := escape + `
echo "leader $$" > "$FIFO"
echo '{"type":"ready","agentId":"escaper"}'
exec sleep 300`
		cases = append(cases, &lux.Case{ID: id, Prompt: "wait", Driver: &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{
			"command": "/bin/sh", "args": []string{"-c", script}, "env": map[string]string{"FIFO": os.Getenv("LUX_TEST_FIFO")},
		}}})
	}
	// The agents report their pids through a fifo outside their workspaces.
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: os.Getenv(harnessEnv), Concurrency: len(cases),
		Sandbox: sandbox.Config{ReadWrite: []string{filepath.Dir(os.Getenv("LUX_TEST_FIFO"))}}})
	_, err := o.RunSuite(context.Background(), cases)
	fmt.Fprintln(os.Stderr, "the suite ended:", err)
	return 1
}

// waitGone waits for process pid to end, by proc.WaitEnded (no polling),
// within the test's safety net (ctxtest.Safety); it reports whether it
// ended.
func waitGone(t *testing.T, pid int) bool {
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	return proc.WaitEnded(ctx, pid) == nil
}

// A harness killed with SIGKILL mid-suite takes its agents with it: with a
// cgroup every process they started, escapees included; with only the
// subreaper their process groups (the escapees are out of reach). The
// suite it left reads as interrupted.
func TestHarnessKilledMidSuiteLeavesNoSurvivor(t *testing.T) {
	for _, c := range []proc.Containment{proc.ContainCgroup, proc.ContainSubreaper} {
		t.Run(string(c), func(t *testing.T) {
			if c == proc.ContainCgroup && proc.HostContainment() != proc.ContainCgroup {
				t.Skip("this process cannot create a cgroup v2 here")
			}
			dir := t.TempDir()
			fifo := filepath.Join(dir, "pids")
			require.NoError(t, syscall.Mkfifo(fifo, 0o600))
			pids, err := os.OpenFile(fifo, os.O_RDWR, 0) // never blocks, never sees end of file
			require.NoError(t, err)
			defer pids.Close()

			root := filepath.Join(dir, "runs")
			harness := exec.Command(os.Args[0], "-test.run=^$")
			harness.Env = append(os.Environ(), harnessEnv+"="+root, "LUX_TEST_FIFO="+fifo, "LUX_TEST_CONTAIN="+string(c))
			harness.Stderr = os.Stderr
			require.NoError(t, harness.Start())
			t.Cleanup(func() { _ = harness.Process.Kill(); _ = harness.Wait() })

			// Each agent reports itself and its escapee.
			want := 2 * len(escapingAgents)
			lines := bufio.NewScanner(pids)
			byRole := map[string][]int{}
			for n := 0; n < want && lines.Scan(); n++ {
				role, num, _ := strings.Cut(lines.Text(), " ")
				pid, err := strconv.Atoi(num)
				require.NoError(t, err, "line %q", lines.Text())
				byRole[role] = append(byRole[role], pid)
				t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			}
			require.Len(t, byRole["leader"], len(escapingAgents))
			require.Len(t, byRole["escapee"], len(escapingAgents))
			for _, pid := range append(byRole["leader"], byRole["escapee"]...) {
				require.True(t, proc.Alive(pid), "pid %d", pid)
			}

			require.NoError(t, harness.Process.Signal(syscall.SIGKILL))
			_ = harness.Wait()
			survivors := 0
			for _, pid := range byRole["leader"] {
				if !waitGone(t, pid) {
					survivors++
				}
			}
			if c == proc.ContainCgroup {
				for _, pid := range byRole["escapee"] {
					if !waitGone(t, pid) {
						survivors++
					}
				}
			}
			// Without a cgroup the escapees are out of reach, as documented.
			assert.Equal(t, 0, survivors, "agents' processes alive after the harness was killed (%s)", c)

			suites, err := record.FindSuites(root)
			require.NoError(t, err)
			require.Len(t, suites, 1)
			s, err := record.ReadSuite(suites[0])
			require.NoError(t, err)
			assert.Equal(t, record.SuiteRunning, s.Manifest.Status, "what the killed harness last wrote")
			assert.Equal(t, record.SuiteInterrupted, s.Manifest.LiveStatus())
		})
	}
}
