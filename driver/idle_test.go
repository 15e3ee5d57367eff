package driver_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/luxeval/lux/driver"
)

func expired(c *driver.IdleClock) bool {
	select {
	case <-c.Expired():
		return true
	default:
		return false
	}
}

func TestIdleClockExpires(t *testing.T) {
	c := driver.NewIdleClock(10 * time.Millisecond)
	select {
	case <-c.Expired():
	case <-time.After(safety):
		t.Fatal("never expired")
	}
	c.Touch()
	c.Resume()
	assert.True(t, expired(c), "expiry is final")
}

// before returns a clock of the shortest period in a doubling series for
// which op ran before the clock expired, with that period. A loaded machine
// may run the test goroutine late, past a short period; that only costs a
// longer period, never a failure. op is Pause or Stop, after which a correct
// clock can no longer expire on its own.
func before(t *testing.T, op func(*driver.IdleClock)) (*driver.IdleClock, time.Duration) {
	t.Helper()
	for d := 20 * time.Millisecond; d < safety; d *= 2 {
		c := driver.NewIdleClock(d)
		op(c)
		if !expired(c) {
			return c, d
		}
	}
	t.Fatal("the clock always expired before it could be paused or stopped")
	return nil, 0
}

func TestIdleClockPauseAndStop(t *testing.T) {
	c, d := before(t, func(c *driver.IdleClock) {
		c.Pause()
		c.Touch() // does not re-arm while paused
	})
	time.Sleep(5 * d)
	assert.False(t, expired(c), "expired while paused")
	c.Resume()
	select {
	case <-c.Expired():
	case <-time.After(safety):
		t.Fatal("never expired after Resume")
	}

	s, d := before(t, func(c *driver.IdleClock) {
		c.Stop()
		c.Resume()
	})
	time.Sleep(5 * d)
	assert.False(t, expired(s), "expired after Stop")

	z := driver.NewIdleClock(0)
	time.Sleep(20 * time.Millisecond)
	assert.False(t, expired(z), "a zero clock expired")
}
