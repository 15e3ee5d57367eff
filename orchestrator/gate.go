package orchestrator

import (
	"context"
	"errors"
	"sync"
)

// agentGate bounds the agents of a suite that run at once: -j N is N
// agents, not N runs in flight. A run is prepared first (its directory
// reserved, its first record files and its workspace made: nothing of it
// is timed yet), then takes a turn, in the suite's order; it starts — its
// start time, time limit and durations begin — once it has one, and gives
// it back as soon as its agent's process tree is gone (see
// runState.agentGone): the harness's work around each agent (preparing the
// next runs; collecting, grading, writing and sealing the record) overlaps
// other runs' agents. With case hooks the turn is held until the case
// cleanups ran, so that a case's setup never overlaps another's cleanup
// beyond what -j allows.
type agentGate struct {
	mu      sync.Mutex
	free    int
	next    int          // the ticket whose turn comes next
	skipped map[int]bool // tickets given up before their turn
	changed chan struct{}
}

func newAgentGate(n int) *agentGate {
	return &agentGate{free: max(1, n), skipped: map[int]bool{}, changed: make(chan struct{})}
}

// broadcast wakes every waiter; g.mu is held.
func (g *agentGate) broadcast() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// advance moves past the tickets given up; g.mu is held.
func (g *agentGate) advance() {
	g.next++
	for g.skipped[g.next] {
		delete(g.skipped, g.next)
		g.next++
	}
}

// turn is one run's use of the gate. Its first turn comes in ticket
// order; a later one (a retry) whenever an agent slot is free. A nil turn
// gates nothing.
type turn struct {
	g      *agentGate
	ticket int
	used   bool // the ticket's place in line was taken or given up
	held   bool
}

// turn returns the ticket-th turn: tickets are handed out in the order
// the runs are dispatched, from 0.
func (g *agentGate) turn(ticket int) *turn {
	if g == nil {
		return nil
	}
	return &turn{g: g, ticket: ticket}
}

// errNotStarted reports a run that was prepared but never given its turn:
// the suite stopped first. It left no record.
var errNotStarted = errors.New("orchestrator: the run was not started")

// acquire waits for the run's turn, or for ctx; it returns ctx's error
// when ctx ended first, or ends as the turn comes (the turn is then not
// held, and the ticket's place is given up).
func (t *turn) acquire(ctx context.Context) error {
	if t == nil {
		return nil
	}
	g := t.g
	for {
		g.mu.Lock()
		if t.held {
			g.mu.Unlock()
			return nil
		}
		if g.free > 0 && (t.used || t.ticket == g.next) {
			if ctx.Err() != nil { // a stopped suite starts nothing
				g.mu.Unlock()
				t.giveUp()
				return ctx.Err()
			}
			g.free--
			if !t.used {
				t.used = true
				g.advance()
			}
			t.held = true
			g.broadcast()
			g.mu.Unlock()
			return nil
		}
		changed := g.changed
		g.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			t.giveUp()
			return ctx.Err()
		}
	}
}

// giveUp gives up the ticket's place in line, when not used, so that the
// runs after it are not kept waiting.
func (t *turn) giveUp() {
	if t == nil {
		return
	}
	g := t.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if t.used {
		return
	}
	t.used = true
	if t.ticket == g.next {
		g.advance()
	} else {
		g.skipped[t.ticket] = true
	}
	g.broadcast()
}

// release gives the turn back, when held (idempotent).
func (t *turn) release() {
	if t == nil {
		return
	}
	g := t.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if t.held {
		t.held = false
		g.free++
		g.broadcast()
	}
}
