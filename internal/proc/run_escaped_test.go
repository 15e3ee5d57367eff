package proc_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/internal/proc"
)

// Input that nobody reads, held by a descendant that left the group, does
// not keep Run's writer (and the pipe) alive after Run returns.
func TestRunInputHeldByEscapedDescendant(t *testing.T) {
	proc.ForceContainment(proc.ContainGroup) // where a descendant can escape
	t.Cleanup(func() { proc.ForceContainment("") })
	runtime.GC()
	before := runtime.NumGoroutine()
	// The descendant writes its pid once it has its own session; the
	// leader prints it and exits.
	pidFile := filepath.Join(t.TempDir(), "pid")
	spec := sh(`exec 3<&0; setsid sh -c 'echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep 300' sh "$1" <&3 >/dev/null 2>&1 &
while [ ! -s "$1" ]; do sleep 0.01; done; cat "$1"`, pidFile)
	spec.Input = make([]byte, 1<<20) // more than a pipe holds
	r, err := proc.Run(context.Background(), spec)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(r.Stdout)))
	require.NoError(t, err, "stdout %q stderr %q", r.Stdout, r.Stderr)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	require.True(t, proc.Alive(pid), "the descendant escaped the group")
	eventually(t, func() bool { return runtime.NumGoroutine() <= before }, "Run left its stdin writer behind")
}
