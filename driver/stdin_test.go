package driver_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/driver"
)

// A write cut short by its context leaves stdin usable: the next write
// with a live context goes through, however the cancellation raced with
// the first.
func TestStdinWriteAfterCancelledWrite(t *testing.T) {
	p, err := driver.StartProcess(driver.ProcessSpec{Path: "/bin/sh", Args: []string{"-c", "cat >/dev/null"}})
	require.NoError(t, err)
	defer func() { _ = p.Stop(context.Background(), 0) }()
	line := make([]byte, 256)
	for i := range 2000 {
		ctx, cancel := context.WithCancel(context.Background())
		go cancel()
		_ = p.Stdin().Write(ctx, line)
		require.NoError(t, p.Stdin().Write(context.Background(), line), "write %d after a cancelled one", i)
	}
}
