package assertion_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luxeval/lux"
)

func TestCommandExitsZero(t *testing.T) {
	t.Setenv("LUX_TEST_SECRET", "hunter2")
	t.Setenv("LUX_TEST_SHARED", "shared")
	runEvaluations(t, []evaluated{
		{name: "exits zero", typ: "command-exits-zero", cfg: `{"command":"test -f README.md && echo ok"}`, pass: true,
			comment: `'test -f README.md && echo ok' exited 0`,
			detail:  map[string]any{"exitCode": 0, "stdout": "ok\n", "timedOut": false, "stdoutTruncated": false}},
		{name: "exits non-zero", typ: "command-exits-zero", cfg: `{"command":"echo oops >&2; exit 3"}`,
			comment: `'echo oops >&2; exit 3' exited 3`, detail: map[string]any{"exitCode": 3, "stderr": "oops\n"}},
		{name: "runs in the run dir", typ: "command-exits-zero", cfg: `{"command":"test -f run.log","in":"run"}`, pass: true},
		{name: "cwd is applied", typ: "command-exits-zero", cfg: `{"command":"test -f main.go","cwd":"src/deep"}`},
		{name: "cwd below the workspace", typ: "command-exits-zero", cfg: `{"command":"test -f x.go","cwd":"src/deep"}`, pass: true},
		{name: "cwd through a symlink is refused", typ: "command-exits-zero", cfg: `{"command":"true","cwd":"linkdir"}`,
			comment: `cwd: path "linkdir" goes through a symlink (in the workspace)`, detail: map[string]any{"refused": "symlink"}},
		{name: "cwd missing", typ: "command-exits-zero", cfg: `{"command":"true","cwd":"nope"}`,
			comment: `cwd: path "nope" does not exist (in the workspace)`},
		{name: "minimal environment", typ: "command-exits-zero", cfg: `{"command":"test -z \"$LUX_TEST_SECRET\" && test -n \"$PATH\""}`, pass: true},
		{name: "inherited names", typ: "command-exits-zero", cfg: `{"command":"test \"$LUX_TEST_SHARED\" = shared && test -z \"$LUX_TEST_SECRET\"","inheritEnv":["LUX_TEST_SHARED"]}`, pass: true},
		{name: "inherit everything", typ: "command-exits-zero", cfg: `{"command":"test \"$LUX_TEST_SECRET\" = hunter2","inheritEnv":true}`, pass: true},
		{name: "env wins", typ: "command-exits-zero", cfg: `{"command":"test \"$LUX_TEST_SHARED\" = mine && test \"$EXTRA\" = 1","inheritEnv":["LUX_TEST_SHARED"],"env":{"LUX_TEST_SHARED":"mine","EXTRA":"1"}}`, pass: true},
		{name: "output is bounded", typ: "command-exits-zero", cfg: `{"command":"head -c 10000 /dev/zero | tr '\\000' x"}`, pass: true,
			detail: map[string]any{"stdout": strings.Repeat("x", 4000), "stdoutTruncated": true}},
		{name: "killed by a signal", typ: "command-exits-zero", cfg: `{"command":"kill -TERM $$"}`,
			comment: `'kill -TERM $$' exited -1 (signal SIGTERM)`, detail: map[string]any{"signal": "SIGTERM"}},
		{name: "timeout", typ: "command-exits-zero", cfg: `{"command":"sleep 30","timeout":"200ms"}`,
			comment: `command timed out after 200ms`, detail: map[string]any{"timedOut": true}},
	})
}

func TestCommandTimeoutStopsTheProcessGroup(t *testing.T) {
	// The child outlives the shell unless the whole group is stopped. A
	// shell slower than the timeout to start its child and write its pid
	// (a loaded machine) is tried again with a longer timeout.
	var pid string
	for _, timeout := range []string{"300ms", "2s", "10s"} {
		run := workspace(t)
		res := grade(t, "command-exits-zero", `{"command":"sleep 30 & echo $! > child.pid; wait","timeout":"`+timeout+`"}`, run)
		if res.Passed || !strings.Contains(res.Comment, "timed out") {
			t.Fatalf("result = %+v", res)
		}
		b, err := os.ReadFile(filepath.Join(run.Workspace, "child.pid"))
		if pid = strings.TrimSpace(string(b)); err == nil && pid != "" {
			break
		}
		t.Logf("the shell did not write its child's pid within %s: trying a longer timeout", timeout)
	}
	if pid == "" {
		t.Fatal("the shell never wrote its child's pid")
	}
	deadline := time.Now().Add(time.Minute) // a safety net only
	for {
		if _, err := os.Stat("/proc/" + pid); os.IsNotExist(err) {
			return
		}
		if status, err := os.ReadFile("/proc/" + pid + "/stat"); err == nil && strings.Contains(string(status), ") Z ") {
			return // a zombie waiting for its reaper: stopped
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %s still running after the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCommandCancelledIsAnError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := parse(t, "command-exits-zero", `{"command":"true"}`).Evaluate(ctx, workspace(t))
	if err == nil {
		t.Fatal("Evaluate with a cancelled context succeeded")
	}
	_, err = parse(t, "command-exits-zero", `{"command":"true"}`).Evaluate(context.Background(), &lux.Run{})
	if err == nil || err.Error() != "assertion: command-exits-zero: the run has no workspace" {
		t.Errorf("Evaluate without a workspace = %v", err)
	}
}
