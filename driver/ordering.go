package driver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/clock"
)

func (s *Session) isTerminal() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.terminal
}

// fail ends the run with an error event unless it has already ended.
func (s *Session) fail(exit lux.ExitReason, reason string) {
	s.queueEvent(lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: exit, Reason: reason}}, false)
}

// emit queues an event the agent reported.
func (s *Session) emit(ev lux.Event) { s.queueEvent(ev, true) }

// queueEvent applies the ordering rules to ev and queues what they allow.
// A terminal event the agent reported gives it ExitDrain to exit by
// itself; one the session decided stops it at once.
func (s *Session) queueEvent(ev lux.Event, fromAgent bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.terminal {
		return
	}
	if ev.Type == lux.EventDone && ev.Done == nil {
		ev.Done = &lux.Done{}
	}
	if problem := malformed(ev); problem != "" {
		ev = errorEvent(lux.ExitError, "driver produced a malformed event: "+problem)
		fromAgent = false
	}
	if ev.Type != lux.EventReady && ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	switch ev.Type {
	case lux.EventReady:
		if s.ready {
			return // one ready per run
		}
		s.ready = true
	case lux.EventProgress:
	case lux.EventInterrupt, lux.EventDone:
		if !s.ready {
			ev = errorEvent(lux.ExitError, fmt.Sprintf("agent emitted %s before ready", ev.Type))
			fromAgent = false
			break
		}
		if ev.Type == lux.EventInterrupt {
			s.interrupts++
			if s.interrupts > s.opts.MaxInterrupts {
				ev = errorEvent(lux.ExitMaxInteractions, fmt.Sprintf("exceeded maxInterrupts (%d)", s.opts.MaxInterrupts))
				fromAgent = false
				break
			}
			s.pending = append(s.pending, *ev.Interrupt)
			s.clock.Pause()
		}
	case lux.EventError:
	default:
		return // responded and lifecycle events are the harness's, not the agent's
	}
	s.clock.Touch()
	s.queue = append(s.queue, ev)
	if ev.Terminal() {
		s.terminal = true
		s.clock.Stop()
		go s.stopAfterTerminal(fromAgent)
	}
	s.wake()
}

// stopAfterTerminal stops the agent's process group once the run has
// ended, the one way (Process.Stop): stdin closed, a grace to exit, then
// the signals. An agent that reported the end itself first gets ExitDrain,
// on the session's clock, as that grace.
func (s *Session) stopAfterTerminal(wait bool) {
	if wait {
		ctx, cancel := context.WithCancel(clock.With(context.Background(), s.clk))
		go func() {
			select {
			case <-s.stop:
			case <-ctx.Done():
			}
			cancel()
		}()
		s.proc.EndInput(ctx, s.opts.ExitDrain)
		cancel()
	}
	_ = s.proc.Stop(context.Background(), s.opts.KillGrace)
}

func errorEvent(exit lux.ExitReason, reason string) lux.Event {
	return lux.Event{Type: lux.EventError, Time: time.Now(), Error: &lux.ErrorEvent{ExitReason: exit, Reason: reason}}
}

// malformed says what is wrong with an event whose payload does not match
// its type, or "".
func malformed(ev lux.Event) string {
	var ok bool
	switch ev.Type {
	case lux.EventReady:
		ok = ev.Ready != nil
	case lux.EventProgress:
		ok = ev.Progress != nil
	case lux.EventInterrupt:
		ok = ev.Interrupt != nil
	case lux.EventError:
		ok = ev.Error != nil
	default:
		return ""
	}
	if ok {
		return ""
	}
	return fmt.Sprintf("%s event without its %s", ev.Type, ev.Type)
}

// Tail returns the end of s, at most n bytes, starting at a line boundary
// when one is near, without surrounding space: the part of an agent's
// stderr an error's reason quotes.
func Tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	return s
}
