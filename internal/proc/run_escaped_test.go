package proc_test

import (
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/internal/ctxtest"
	"github.com/luxeval/lux/internal/proc"
)

// Input that nobody reads, held by a descendant that left the group, does
// not keep Run's writer (and the pipe) alive after Run returns.
func TestRunInputHeldByEscapedDescendant(t *testing.T) {
	proc.ForceContainment(proc.ContainGroup) // where a descendant can escape
	t.Cleanup(func() { proc.ForceContainment("") })
	// The descendant prints its pid once it has its own session, then
	// holds the input without reading it; the leader prints the pid (the
	// command substitution ends when the descendant lets go of its
	// output) and exits.
	spec := sh(`exec 3<&0; pid=$(setsid sh -c 'echo $$; exec sleep 300 <&3 >/dev/null 2>&1' &); echo "$pid"`)
	spec.Input = make([]byte, 1<<20) // more than a pipe holds
	// Run joins its stdin writer before it returns: a writer left blocked on
	// the pipe would keep Run from returning.
	type result struct {
		r   proc.Result
		err error
	}
	ran := make(chan result, 1)
	go func() {
		r, err := proc.Run(context.Background(), spec)
		ran <- result{r, err}
	}()
	var res result
	select {
	case res = <-ran:
	case <-ctxtest.SafetyNet(t): // a safety net only
		t.Fatal("Run never returned: its stdin writer is held by input nobody reads")
	}
	r, err := res.r, res.err
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(r.Stdout)))
	require.NoError(t, err, "stdout %q stderr %q", r.Stdout, r.Stderr)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	require.True(t, proc.Alive(pid), "the descendant escaped the group")
}
