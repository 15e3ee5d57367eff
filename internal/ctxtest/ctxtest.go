// Package ctxtest lets a test act at the moment the code it tests starts
// waiting on a context, instead of after a guessed delay.
package ctxtest

import (
	"context"
	"sync"
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
