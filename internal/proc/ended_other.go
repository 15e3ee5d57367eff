//go:build !linux

package proc

import (
	"context"
	"syscall"
	"time"
)

// WaitEnded waits until process pid has ended, whoever its parent is, or
// ctx ends. Without pidfds it looks every few milliseconds.
func WaitEnded(ctx context.Context, pid int) error {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for Alive(pid) {
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// WaitGroupEnded waits until process group pgid is empty, or ctx ends.
func WaitGroupEnded(ctx context.Context, pgid int) error {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for syscall.Kill(-pgid, 0) == nil {
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
