// Package leaktest waits for the goroutines and files a test counts to be
// released.
//
// It is the one place where a test polls: the runtime tells no one when a
// goroutine ends or a finalizer closes a file, so Settle looks again
// every few milliseconds. The poll decides only whether something
// remains, never how fast it goes: the minute it allows is a safety net.
package leaktest

import (
	"runtime"
	"time"
)

// Settle waits until count() is at most want, collecting garbage between
// looks (finalizers close dropped files), for a minute at most, and
// returns count's last value.
func Settle(count func() int, want int) int {
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	n := count()
	for n > want && time.Now().Before(deadline) {
		runtime.GC()
		<-tick.C
		n = count()
	}
	return n
}

// Goroutines is Settle for runtime.NumGoroutine.
func Goroutines(want int) int { return Settle(runtime.NumGoroutine, want) }
