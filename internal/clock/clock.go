// Package clock is the time source of the timers that decide how a run
// ends (a session's idle clock and time limit). Code asks the context for
// its clock: the real one unless a test put a [Manual] clock there, which
// then fires those timers exactly when the test advances it, whatever the
// machine's load.
package clock

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Clock schedules functions.
type Clock interface {
	// AfterFunc calls f in its own goroutine once d has passed; the
	// Timer's Stop cancels the call.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a call scheduled by AfterFunc.
type Timer interface {
	// Stop cancels the call; it reports whether it did (the call had not
	// yet been made).
	Stop() bool
}

type real struct{}

func (real) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// Real is the system's clock.
func Real() Clock { return real{} }

type key struct{}

// With returns a context whose clock is c.
func With(ctx context.Context, c Clock) context.Context { return context.WithValue(ctx, key{}, c) }

// From returns the clock of ctx: the one given to With, else Real.
func From(ctx context.Context) Clock {
	if c, ok := ctx.Value(key{}).(Clock); ok {
		return c
	}
	return Real()
}

// Manual is a clock that moves only when Advance is called. The zero
// value is ready to use. Safe for concurrent use.
type Manual struct {
	mu        sync.Mutex
	now       time.Duration // since the clock was made
	timers    []*manualTimer
	scheduled int
	changed   chan struct{} // closed and replaced at each AfterFunc
}

type manualTimer struct {
	m    *Manual
	at   time.Duration
	f    func()
	done bool // called or stopped
}

func (t *manualTimer) Stop() bool {
	t.m.mu.Lock()
	defer t.m.mu.Unlock()
	if t.done {
		return false
	}
	t.done = true
	return true
}

// AfterFunc schedules f for d after the clock's present time.
func (m *Manual) AfterFunc(d time.Duration, f func()) Timer {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := &manualTimer{m: m, at: m.now + d, f: f}
	m.timers = append(m.timers, t)
	m.scheduled++
	if m.changed != nil {
		close(m.changed)
		m.changed = nil
	}
	return t
}

// Advance moves the clock forward by d and makes, in their order, the
// calls that fall due; it returns once they have been started (each runs
// in its own goroutine, as with time.AfterFunc).
func (m *Manual) Advance(d time.Duration) {
	m.mu.Lock()
	m.now += d
	var due []*manualTimer
	keep := m.timers[:0]
	for _, t := range m.timers {
		switch {
		case t.done:
		case t.at <= m.now:
			t.done = true
			due = append(due, t)
		default:
			keep = append(keep, t)
		}
	}
	m.timers = keep
	m.mu.Unlock()
	sort.SliceStable(due, func(i, j int) bool { return due[i].at < due[j].at })
	for _, t := range due {
		go t.f()
	}
}

// Pending is how many scheduled calls have been neither made nor stopped.
func (m *Manual) Pending() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, t := range m.timers {
		if !t.done {
			n++
		}
	}
	return n
}

// Scheduled is how many calls AfterFunc has scheduled in all: a clock that
// is re-armed shows here each time.
func (m *Manual) Scheduled() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.scheduled
}

// WaitScheduled waits until AfterFunc has scheduled n calls in all, or ctx
// ends: the code under test has armed its timers.
func (m *Manual) WaitScheduled(ctx context.Context, n int) error {
	for {
		m.mu.Lock()
		if m.scheduled >= n {
			m.mu.Unlock()
			return nil
		}
		if m.changed == nil {
			m.changed = make(chan struct{})
		}
		changed := m.changed
		m.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WithTimeoutCause is context.WithTimeoutCause on ctx's clock: the
// returned context ends d from now, with the error
// context.DeadlineExceeded and the cause cause.
func WithTimeoutCause(ctx context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	if _, ok := From(ctx).(real); ok {
		return context.WithTimeoutCause(ctx, d, cause)
	}
	tc, start, stop := WithDeferredTimeout(ctx, d, cause)
	start()
	return tc, stop
}

// WithDeferredTimeout is WithTimeoutCause whose d runs from the first
// call of start, not from now: until then the context ends only with ctx.
// start may be called from any goroutine; stop releases the timer and
// ends the context, as WithTimeoutCause's cancel does.
func WithDeferredTimeout(ctx context.Context, d time.Duration, cause error) (_ context.Context, start func(), stop context.CancelFunc) {
	c := From(ctx)
	inner, cancel := context.WithCancelCause(ctx)
	tc := &timeoutCtx{Context: inner, done: make(chan struct{})}
	end := func() { tc.once.Do(func() { close(tc.done) }) }
	var (
		mu      sync.Mutex
		t       Timer
		stopped bool
	)
	start = func() {
		mu.Lock()
		defer mu.Unlock()
		if t != nil || stopped {
			return
		}
		t = c.AfterFunc(d, func() {
			tc.mu.Lock()
			tc.expired = true
			tc.mu.Unlock()
			cancel(cause)
			end()
		})
	}
	context.AfterFunc(inner, end) // ctx ended
	return tc, start, func() {
		mu.Lock()
		stopped = true
		if t != nil {
			t.Stop()
		}
		mu.Unlock()
		cancel(context.Canceled)
		end()
	}
}

// timeoutCtx ends with context.DeadlineExceeded once its timer fired. Its
// Done channel is its own, so that contexts derived from it take their
// error from its Err.
type timeoutCtx struct {
	context.Context
	done    chan struct{}
	once    sync.Once
	mu      sync.Mutex
	expired bool
}

func (c *timeoutCtx) Done() <-chan struct{} { return c.done }

func (c *timeoutCtx) Err() error {
	select {
	case <-c.done:
	default:
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.expired {
		return context.DeadlineExceeded
	}
	return c.Context.Err()
}
