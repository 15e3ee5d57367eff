// Package ctxtest lets a test act at the moment the code it tests starts
// waiting on a context, instead of after a guessed delay.
package ctxtest

import (
	"context"
	"sync"
	"testing"
	"time"
)

// watched is a context that calls f on the first call of its Done method.
type watched struct {
	context.Context
	once sync.Once
	f    func()
}

func (c *watched) Done() <-chan struct{} {
	c.once.Do(func() { go c.f() })
	return c.Context.Done()
}

// OnWait returns parent with f called, in a goroutine of its own, once the
// code given the context asks for its Done channel: the first moment it
// can be waiting on it. Code that derives a context from it asks at once,
// so f may run before the wait; it never runs later.
func OnWait(parent context.Context, f func()) context.Context {
	return &watched{Context: parent, f: f}
}

// CancelOnWait returns a context derived from parent that cancels itself
// once the code given it asks for its Done channel (see OnWait). The
// returned cancel releases the context's resources.
func CancelOnWait(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	return OnWait(ctx, cancel), cancel
}

// deadliner is a test that knows its binary's deadline (*testing.T).
type deadliner interface {
	Deadline() (time.Time, bool)
}

// Safety returns the context for a test's waits on real processes and
// servers: it ends with the test, and a little before the test binary's
// own deadline (go test -timeout), so that a wait that never ends fails
// the test with the test's own message, and its processes are stopped,
// rather than the binary panicking. It is a safety net, never a verdict
// on speed: however loaded the machine, a wait that ends before the
// binary's deadline is not cut short, and a binary without a deadline
// (-timeout 0) gives a context without one.
func Safety(t testing.TB) (context.Context, context.CancelFunc) {
	ctx := t.Context()
	if d, ok := t.(deadliner); ok {
		if end, ok := d.Deadline(); ok {
			margin := time.Until(end) / 10
			margin = min(max(margin, time.Second), 30*time.Second)
			return context.WithDeadline(ctx, end.Add(-margin))
		}
	}
	return context.WithCancel(ctx)
}

// SafetyNet is the Done channel of a Safety context that ends with the
// test, for a select that waits on something else and must not wait
// forever: a safety net, never a verdict on speed.
func SafetyNet(t testing.TB) <-chan struct{} {
	ctx, cancel := Safety(t)
	t.Cleanup(cancel)
	return ctx.Done()
}

// Within is parent (its values and its end) bounded by t's safety net
// (Safety): for a wait on a real process whose context must carry the
// parent's values or cancellation.
func Within(t testing.TB, parent context.Context) (context.Context, context.CancelFunc) {
	safety, stopSafety := Safety(t)
	ctx, cancel := context.WithCancel(parent)
	stop := context.AfterFunc(safety, cancel)
	return ctx, func() { stop(); cancel(); stopSafety() }
}
