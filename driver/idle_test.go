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

func TestIdleClockPauseAndStop(t *testing.T) {
	c := driver.NewIdleClock(20 * time.Millisecond)
	c.Pause()
	c.Touch() // does not re-arm while paused
	time.Sleep(100 * time.Millisecond)
	assert.False(t, expired(c), "expired while paused")
	c.Resume()
	select {
	case <-c.Expired():
	case <-time.After(safety):
		t.Fatal("never expired after Resume")
	}

	s := driver.NewIdleClock(20 * time.Millisecond)
	s.Stop()
	s.Resume()
	time.Sleep(100 * time.Millisecond)
	assert.False(t, expired(s), "expired after Stop")

	z := driver.NewIdleClock(0)
	time.Sleep(20 * time.Millisecond)
	assert.False(t, expired(z), "a zero clock expired")
}
