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
