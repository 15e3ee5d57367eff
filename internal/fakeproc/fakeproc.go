// Package fakeproc holds what the fake agents and CLIs that tests run as
// real processes share.
package fakeproc

import (
	"os"
	"os/signal"
	"syscall"
)

// Hang blocks until a signal ends the process. It waits for a signal
// nobody sends (SIGUSR2), so that the runtime, unlike with an empty
// select, cannot take the wait for a deadlock; it never wakes on a timer.
func Hang() {
	never := make(chan os.Signal, 1)
	signal.Notify(never, syscall.SIGUSR2)
	for {
		<-never
	}
}

// Exit ends a test binary that acts as an agent at once, with code. A
// binary built with -race otherwise sleeps for a second at exit
// (GORACE's atexit_sleep_ms) before it ends, and a harness that waits for
// its agent's own exit after the agent's last event, as the stop sequence
// does, would wait that second on every run.
func Exit(code int) {
	syscall.Exit(code)
}
