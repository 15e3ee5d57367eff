package orchestrator

import (
	"context"
	"sync"
)

// agentGate bounds the agents of a suite that run at once: -j N is N
// agents, not N runs in flight. A run takes a turn before it starts
// (before its record exists, so its timeout, start time and durations
// never hold the wait) and gives it back as soon as its agent's process
// tree is gone (see runState.agentGone): the harness's own work around
// the agent — collecting, grading, writing and sealing the record, moving
// it out of .live — overlaps the next run's agent. With case hooks the
// turn is held until the case cleanups ran, so that a case's setup never
// overlaps another's cleanup beyond what -j allows.
type agentGate struct{ turns chan struct{} }

func newAgentGate(n int) *agentGate { return &agentGate{turns: make(chan struct{}, max(1, n))} }

// turn is one run's use of the gate: acquired before each attempt,
// released once (release is idempotent). A nil turn gates nothing.
type turn struct {
	g    *agentGate
	mu   sync.Mutex
	held bool
}

func (g *agentGate) turn() *turn {
	if g == nil {
		return nil
	}
	return &turn{g: g}
}

// acquire waits for the gate, or for ctx; it returns ctx's error when ctx
// ended first (the turn is then not held).
func (t *turn) acquire(ctx context.Context) error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	held := t.held
	t.mu.Unlock()
	if held {
		return nil
	}
	select {
	case t.g.turns <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if ctx.Err() != nil { // both were ready: a cancelled suite starts nothing
		<-t.g.turns
		return ctx.Err()
	}
	t.mu.Lock()
	t.held = true
	t.mu.Unlock()
	return nil
}

// release gives the turn back, when held.
func (t *turn) release() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.held {
		t.held = false
		<-t.g.turns
	}
}
