package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"
)

// Plugin calls are guarded two ways. A panic becomes an error: the run it
// happened in fails (or the case is refused, during validation), and
// everything else goes on. And a call that does not return is not waited
// for without end: once the run's context is cancelled (or, for Close,
// which has no context, from the start) the call gets Options.CleanupTimeout
// to return, and is then abandoned — its goroutine is left behind, the
// run's record is completed and says so.

// panicError is a plugin's panic turned into an error.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.value) }

// abandonedError is a plugin call given up on.
type abandonedError struct {
	what  string
	cause error
}

func (e *abandonedError) Error() string { return fmt.Sprintf("%s %v (abandoned)", e.what, e.cause) }

// protect calls f, turning a panic into a *panicError.
func protect(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicError{value: v, stack: debug.Stack()}
		}
	}()
	return f()
}

// call calls the plugin method f for the run and waits for it until it
// returns or watch is done; then f is abandoned with an *abandonedError
// (watch's cause says why). A panic becomes f's error, and its stack goes
// to the run's stderr.log for the plugin's author.
//
// f must write only to variables that the caller reads after call returned
// nil: an abandoned f may still write them later.
func (r *runState) call(watch context.Context, what string, f func() error) error {
	err := callWithin(watch, what, f)
	var pe *panicError
	if errors.As(err, &pe) && r.stderr != nil {
		fmt.Fprintf(r.stderr, "\n[lux: %s panicked: %v]\n%s\n", what, pe.value, pe.stack)
	}
	return err
}

// callWithin calls f in its own goroutine and waits until it returns (a
// panic becomes its error) or watch is done (an *abandonedError).
func callWithin(watch context.Context, what string, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- protect(f) }()
	select {
	case err := <-done:
		return err
	case <-watch.Done():
		select {
		case err := <-done: // it returned just now
			return err
		default:
			return &abandonedError{what: what, cause: context.Cause(watch)}
		}
	}
}

// graceAfter returns a context that is done d after ctx is done, and a
// function releasing it. It bounds the wait for plugin calls that ignore
// their context's cancellation.
func graceAfter(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	g, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			cancel(fmt.Errorf("did not return within %s of the cancellation", d))
		case <-g.Done():
		}
	})
	return g, func() {
		stop()
		cancel(context.Canceled)
	}
}

// bounded returns a context that is done after d, for calls that have no
// context to honour (Close).
func bounded(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(context.Background(), d, fmt.Errorf("did not return within %s", d))
}
