package assertion_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/clock"
	"github.com/luxeval/lux/internal/proc"
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
	// The child outlives the shell unless the whole group is stopped. The
	// timeout runs on a manual clock, advanced once the shell has started
	// its child and written the child's pid to a fifo the test reads.
	run := workspace(t)
	// Outside the workspace: the command runs on a copy of it.
	fifo := filepath.Join(t.TempDir(), "child.pid")
	if err := mkfifo(fifo); err != nil {
		t.Skip("no fifo:", err)
	}
	m := &clock.Manual{}
	type graded struct {
		res lux.Result
		err error
	}
	a := parse(t, "command-exits-zero", `{"command":"sleep 300 & echo $! > '`+fifo+`'; wait","timeout":"5m"}`)
	done := make(chan graded, 1)
	go func() {
		res, err := a.Evaluate(clock.With(context.Background(), m), run)
		done <- graded{res, err}
	}()
	b, err := os.ReadFile(fifo) // until the shell has written and closed it
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("the shell wrote %q", b)
	}
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	if err := m.WaitScheduled(ctx, 1); err != nil {
		t.Fatal("the command's timeout was never armed")
	}
	m.Advance(5 * time.Minute)
	g := <-done
	if g.err != nil || g.res.Passed || g.res.Comment != "command timed out after 5m0s" {
		t.Fatalf("result = %+v, %v", g.res, g.err)
	}
	if err := proc.WaitEnded(ctx, pid); err != nil {
		t.Fatalf("child %d still running after the timeout: %v", pid, err)
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
