package driver_test

import (
	"testing"
	"testing/synctest"
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

// The idle clock runs on the bubble's fake clock: each step below happens
// at an exact instant, whatever the machine's load.

func TestIdleClockExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := driver.NewIdleClock(time.Minute)
		time.Sleep(time.Minute - time.Nanosecond)
		synctest.Wait()
		assert.False(t, expired(c), "expired before its period")
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		assert.True(t, expired(c), "not expired after its period")
		c.Touch()
		c.Resume()
		assert.True(t, expired(c), "expiry is final")
	})
}

func TestIdleClockTouchRearms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := driver.NewIdleClock(time.Minute)
		for range 5 {
			time.Sleep(59 * time.Second)
			c.Touch()
		}
		synctest.Wait()
		assert.False(t, expired(c), "expired though touched within every period")
		time.Sleep(time.Minute)
		synctest.Wait()
		assert.True(t, expired(c), "not expired a full period after the last touch")
	})
}

func TestIdleClockPauseAndResume(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := driver.NewIdleClock(time.Minute)
		time.Sleep(30 * time.Second)
		c.Pause()
		c.Touch() // does not re-arm while paused
		time.Sleep(time.Hour)
		synctest.Wait()
		assert.False(t, expired(c), "expired while paused")
		c.Resume() // a full period from now
		time.Sleep(time.Minute - time.Nanosecond)
		synctest.Wait()
		assert.False(t, expired(c), "Resume did not re-arm for a full period")
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		assert.True(t, expired(c), "never expired after Resume")
	})
}

func TestIdleClockStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := driver.NewIdleClock(time.Minute)
		c.Stop()
		c.Resume()
		c.Touch()
		time.Sleep(time.Hour)
		synctest.Wait()
		assert.False(t, expired(c), "expired after Stop")
	})
}

func TestIdleClockZeroNeverExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, d := range []time.Duration{0, -time.Second} {
			c := driver.NewIdleClock(d)
			time.Sleep(24 * time.Hour)
			synctest.Wait()
			assert.False(t, expired(c), "a clock of %s expired", d)
		}
	})
}
