package clock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/luxeval/lux/internal/clock"
)

func TestManualFiresWhenAdvancedPastItsTime(t *testing.T) {
	m := &clock.Manual{}
	fired := make(chan string, 3)
	m.AfterFunc(2*time.Second, func() { fired <- "2s" })
	stopped := m.AfterFunc(time.Second, func() { fired <- "stopped" })
	m.AfterFunc(time.Hour, func() { fired <- "1h" })
	assert.True(t, stopped.Stop())
	assert.False(t, stopped.Stop(), "stopped twice")
	m.Advance(2*time.Second - time.Nanosecond)
	assert.Equal(t, 2, m.Pending())
	m.Advance(time.Nanosecond)
	assert.Equal(t, "2s", <-fired)
	assert.Equal(t, 1, m.Pending())
	m.Advance(time.Hour)
	assert.Equal(t, "1h", <-fired)
	assert.Equal(t, 0, m.Pending())
	assert.Equal(t, 3, m.Scheduled())
	assert.Empty(t, fired)
}

func TestFromContext(t *testing.T) {
	assert.Equal(t, clock.Real(), clock.From(context.Background()))
	m := &clock.Manual{}
	assert.Same(t, m, clock.From(clock.With(context.Background(), m)))
}

func TestWaitScheduled(t *testing.T) {
	m := &clock.Manual{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, m.WaitScheduled(ctx, 1), context.Canceled)
	assert.NoError(t, m.WaitScheduled(ctx, 0))
	done := make(chan error)
	go func() { done <- m.WaitScheduled(context.Background(), 2) }()
	m.AfterFunc(time.Second, func() {})
	m.AfterFunc(time.Second, func() {})
	assert.NoError(t, <-done)
}

func TestWithTimeoutCause(t *testing.T) {
	m := &clock.Manual{}
	cause := errors.New("too long")
	ctx, cancel := clock.WithTimeoutCause(clock.With(context.Background(), m), time.Minute, cause)
	defer cancel()
	child, cancelChild := context.WithCancel(ctx)
	defer cancelChild()
	m.Advance(time.Minute - time.Nanosecond)
	assert.NoError(t, ctx.Err())
	m.Advance(time.Nanosecond)
	<-child.Done()
	assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	assert.ErrorIs(t, child.Err(), context.DeadlineExceeded)
	assert.Equal(t, cause, context.Cause(child))

	ctx, cancel = clock.WithTimeoutCause(clock.With(context.Background(), m), time.Minute, cause)
	cancel()
	assert.ErrorIs(t, ctx.Err(), context.Canceled)
	assert.Equal(t, 0, m.Pending(), "cancel stops the timer")
}

func TestWithDeferredTimeout(t *testing.T) {
	m := &clock.Manual{}
	cause := errors.New("too long")
	ctx, start, stop := clock.WithDeferredTimeout(clock.With(context.Background(), m), time.Minute, cause)
	defer stop()
	m.Advance(time.Hour)
	assert.NoError(t, ctx.Err(), "the time before start does not count")
	assert.Equal(t, 0, m.Pending())
	start()
	start() // the first call counts
	assert.Equal(t, 1, m.Pending())
	m.Advance(time.Minute - time.Nanosecond)
	assert.NoError(t, ctx.Err())
	m.Advance(time.Nanosecond)
	<-ctx.Done()
	assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	assert.Equal(t, cause, context.Cause(ctx))

	ctx, start, stop = clock.WithDeferredTimeout(clock.With(context.Background(), m), time.Minute, cause)
	stop()
	start() // after stop: nothing is scheduled
	assert.ErrorIs(t, ctx.Err(), context.Canceled)
	assert.Equal(t, 0, m.Pending())

	parent, cancelParent := context.WithCancel(clock.With(context.Background(), m))
	ctx, _, stop = clock.WithDeferredTimeout(parent, time.Minute, cause)
	defer stop()
	cancelParent()
	<-ctx.Done()
	assert.ErrorIs(t, ctx.Err(), context.Canceled, "the parent ends it before start")
}
