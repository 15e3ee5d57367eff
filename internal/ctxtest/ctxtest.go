// Package ctxtest lets a test act at the moment the code it tests starts
// waiting on a context, instead of after a guessed delay.
package ctxtest

import (
	"context"
	"sync"
)

// watched is a context that reports the first call of its Done method.
type watched struct {
	context.Context
	once    sync.Once
	waiting chan struct{}
}

func (c *watched) Done() <-chan struct{} {
	c.once.Do(func() { close(c.waiting) })
	return c.Context.Done()
}

// CancelOnWait returns a context derived from parent that cancels itself
// once the code given it asks for its Done channel: the first moment it
// can be waiting on it. Code that derives a context from it asks at once,
// so the cancellation may come before the wait; it never comes later.
// The returned cancel releases the context's resources.
func CancelOnWait(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	w := &watched{Context: ctx, waiting: make(chan struct{})}
	go func() {
		select {
		case <-w.waiting:
			cancel()
		case <-ctx.Done():
		}
	}()
	return w, cancel
}
