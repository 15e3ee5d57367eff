package driver

import (
	"sync"
	"time"

	"github.com/luxeval/lux/internal/clock"
)

// DefaultIdleTimeout is how long an agent may stay silent when
// SessionOptions set no idle timeout, and the idle timeout of a lux-jsonl
// program (see LuxJSONLDefaults), which reports its progress as it works.
const DefaultIdleTimeout = 2 * time.Minute

// IdleClock fires when an agent has been silent for too long. It is armed
// when made; Touch re-arms it on each event; Pause stops it while the agent
// legitimately waits (an interrupt is outstanding) and Resume re-arms it.
// Once expired it stays expired. Safe for concurrent use.
type IdleClock struct {
	d       time.Duration
	clk     clock.Clock
	expired chan struct{}

	mu      sync.Mutex
	timer   clock.Timer
	gen     uint64
	paused  bool
	stopped bool
}

// NewIdleClock returns a clock armed for d. A d of zero or less never expires.
func NewIdleClock(d time.Duration) *IdleClock { return newIdleClock(d, clock.Real()) }

func newIdleClock(d time.Duration, clk clock.Clock) *IdleClock {
	c := &IdleClock{d: d, clk: clk, expired: make(chan struct{})}
	c.mu.Lock()
	c.arm()
	c.mu.Unlock()
	return c
}

// Duration is the silence the clock allows.
func (c *IdleClock) Duration() time.Duration { return c.d }

// Expired is closed when the clock expires.
func (c *IdleClock) Expired() <-chan struct{} { return c.expired }

// Touch re-arms the clock for a full period, unless it is paused or stopped.
func (c *IdleClock) Touch() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.paused {
		c.arm()
	}
}

// Pause stops the clock until Resume.
func (c *IdleClock) Pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused = true
	c.disarm()
}

// Resume re-arms a paused clock for a full period.
func (c *IdleClock) Resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused = false
	c.arm()
}

// Stop disarms the clock for good; it will not expire afterwards.
func (c *IdleClock) Stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	c.disarm()
}

// arm (re)starts the timer; c.mu is held.
func (c *IdleClock) arm() {
	c.disarm()
	if c.stopped || c.d <= 0 {
		return
	}
	gen := c.gen
	c.timer = c.clk.AfterFunc(c.d, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.gen != gen || c.paused || c.stopped {
			return // re-armed, paused or stopped since
		}
		c.stopped = true
		close(c.expired)
	})
}

// disarm stops the timer; c.mu is held.
func (c *IdleClock) disarm() {
	c.gen++
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
}
