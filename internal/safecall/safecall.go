// Package safecall calls plugin code that may panic or never return: the
// orchestrator's calls into drivers, answerers and assertions, and
// luxtest's conformance checks of them, are guarded by it alike.
//
// A panic in the call becomes a *PanicError, with the stack. A call that
// does not return is abandoned once its watch context is done: the caller
// gets an *AbandonedError at once and goes on, and the call's goroutine is
// left to finish on its own (whatever it writes later is not read).
//
// # Timing
//
// The guard keeps no clock of its own: a call is waited for until it
// returns or its watch is done, whichever comes first (a result that is
// ready when the watch ends still wins). The watch says how long a call
// may take, and there are two:
//
//   - After(ctx, grace), for a call given ctx: done grace after ctx is
//     done. A call that honours its context is never abandoned, however
//     long ctx lives; one that ignores the end of its context is given
//     grace to return its error, then abandoned.
//   - Within(d), for a call that takes no context (Close, Parse, Usage):
//     done d after the call starts.
//
// So a plugin call is bounded in time by bounding its context (a run's
// time limit, a conformance scenario's Timeout), and the guard bounds only
// how long a call may ignore that bound.
package safecall

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/luxeval/lux/internal/clock"
)

// PanicError is a panic of a guarded call, turned into its error.
type PanicError struct {
	Value any    // what the call panicked with
	Stack []byte // the goroutine's stack at the panic
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// AbandonedError is a guarded call given up on: its watch was done first.
type AbandonedError struct {
	What  string // the call, as the caller named it (`driver "x" Next`)
	Cause error  // why the watch was done (context.Cause of the watch)
}

func (e *AbandonedError) Error() string {
	if e.What == "" {
		return fmt.Sprintf("%v (abandoned)", e.Cause)
	}
	return fmt.Sprintf("%s %v (abandoned)", e.What, e.Cause)
}

// Protect calls f in this goroutine, turning a panic into a *PanicError.
func Protect(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return f()
}

// Call calls f in its own goroutine and returns what it returns, or a
// *PanicError when it panics, or, when watch is done first, the zero T
// and an *AbandonedError naming the call what.
func Call[T any](watch context.Context, what string, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.err = Protect(func() (err error) {
			r.v, err = f()
			return err
		})
		done <- r
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-watch.Done():
		select {
		case r := <-done: // it returned just now
			return r.v, r.err
		default:
			var zero T
			return zero, &AbandonedError{What: what, Cause: context.Cause(watch)}
		}
	}
}

// Do is Call for a function that returns only an error.
func Do(watch context.Context, what string, f func() error) error {
	_, err := Call(watch, what, func() (struct{}, error) { return struct{}{}, f() })
	return err
}

// After returns the watch of a call given ctx: a context done grace after
// ctx is done, and a function releasing it. The grace runs on ctx's clock
// (internal/clock): the system's, unless a test gave another.
func After(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	g, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	clk := clock.From(ctx)
	stop := context.AfterFunc(ctx, func() {
		t := clk.AfterFunc(grace, func() {
			cancel(fmt.Errorf("did not return within %s after its context ended", grace))
		})
		context.AfterFunc(g, func() { t.Stop() })
	})
	return g, func() {
		stop()
		cancel(context.Canceled)
	}
}

// Within returns the watch of a call that takes no context: a context
// done d from now, and a function releasing it.
func Within(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(context.Background(), d, fmt.Errorf("did not return within %s", d))
}
