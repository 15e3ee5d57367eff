package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// WaitEnded waits until process pid has ended, whoever its parent is: an
// ended process its parent has not reaped counts as ended, as for
// [Alive]. It wakes on the process's exit itself (a pidfd), not by
// polling, and returns ctx's error if ctx ends first.
func WaitEnded(ctx context.Context, pid int) error {
	if pid <= 0 {
		return nil
	}
	const sysPidfdOpen = 434 // the same number on every Linux architecture
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), uintptr(syscall.O_NONBLOCK), 0)
	if errno == syscall.ESRCH {
		return nil
	}
	if errno != 0 {
		return fmt.Errorf("proc: watch process %d: pidfd_open: %w", pid, errno)
	}
	// A non-blocking pidfd joins the runtime's poller: it reads as ready
	// once the process has ended.
	f := os.NewFile(fd, fmt.Sprintf("pidfd %d", pid))
	defer f.Close()
	raw, err := f.SyscallConn()
	if err != nil {
		return fmt.Errorf("proc: watch process %d: %w", pid, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	// Read calls the function again each time the pidfd turns ready.
	err = raw.Read(func(uintptr) bool { return !Alive(pid) })
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("proc: watch process %d: %w", pid, err)
	}
	return nil
}

// WaitGroupEnded waits until no process of process group pgid is left
// (ended but unreaped processes count as gone), waking on each member's
// exit; it returns ctx's error if ctx ends first.
func WaitGroupEnded(ctx context.Context, pgid int) error {
	for {
		members := groupMembers(pgid)
		if len(members) == 0 {
			return nil
		}
		for _, pid := range members {
			if err := WaitEnded(ctx, pid); err != nil {
				return err
			}
		}
	}
}

// groupMembers lists the processes of process group pgid that have not
// ended, from /proc.
func groupMembers(pgid int) []int {
	var live []int
	for pid, p := range scan() {
		if p.pgrp == pgid && !p.zombie {
			live = append(live, pid)
		}
	}
	return live
}
