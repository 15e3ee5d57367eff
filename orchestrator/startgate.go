package orchestrator

import (
	"context"
	"sync"
	"time"
)

// A GatedStarter is a driver config whose Start starts its agent through
// the run's sandbox, with sandbox.Handle.StartContext or StartReady (as
// driver.StartSession does), and returns once the agent is let go: the
// sandbox holds the agent at the run's Gate (sandbox.Run.Gate) until it
// returns. The orchestrator then calls Start before the run has its turn
// (see Options.Concurrency) and takes the turn at the gate: the driver's
// start and the agent's sandbox (its process created and confined,
// stopped before its first instruction) are made while other runs' agents
// run, and only the agent's release waits for the turn. A driver whose
// Start does more after its agent is let go still runs that inside the
// run's time. A driver that starts no process through the sandbox leaves
// its config without this method (or returns false): its run takes its
// turn before Start is called. Runs of a suite with case hooks take their
// turn before their setups, whatever the driver.
type GatedStarter interface {
	StartsAtGate() bool
}

// gatedStart reports whether the run's driver is started before the run
// has its turn, the turn taken at the sandbox's gate.
func (r *runState) gatedStart(t *turn) bool {
	if t == nil || !r.prepared || len(r.o.hooks) > 0 {
		return false
	}
	g, ok := r.p.driver.(GatedStarter)
	return ok && g.StartsAtGate()
}

// startGate is a run's turn taken at its sandbox's gate (sandbox.Run.Gate):
// the agent is let go once the run has its turn, and the run starts then.
type startGate struct {
	ctx        context.Context // the run's (not its time limit's)
	turn       *turn
	startClock func()          // starts the run's time limit
	onStart    func(time.Time) // marks the run started

	mu      sync.Mutex
	at      time.Time // when the turn came
	passed  bool
	refused bool // ctx ended first
	started bool // settle started the run
}

// pass is the sandbox's Gate: it waits for the run's turn. The run's time
// limit starts as it returns.
func (g *startGate) pass(ctx context.Context) error {
	// The wait ends with the run's context, seen at once (the start's
	// context derives from it through the run's time limit, whose end
	// follows the run's a moment later), or with the start's.
	wctx, cancel := context.WithCancel(g.ctx)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	err := g.turn.acquire(wctx)
	now := time.Now().UTC()
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case err != nil && g.ctx.Err() != nil:
		g.refused = true // the run was stopped before it started
		return errNotStarted
	case err != nil:
		// The start's own context ended (a driver's deadline for its
		// start): the start fails, and the run is recorded so.
		return err
	}
	g.at, g.passed = now, true
	g.startClock()
	return nil
}

// settle starts the run once the driver's Start returned (agent: with a
// session): when the gate was passed, as of then; when Start returned
// without reaching it (it failed first, or started its agent otherwise
// than through the sandbox), once the run has its turn, taken now. It
// reports false when the run never started: the gate was refused, or the
// run's context ended before the gate was reached and Start started
// nothing.
func (g *startGate) settle(agent bool) bool {
	g.mu.Lock()
	at, passed, refused := g.at, g.passed, g.refused
	g.mu.Unlock()
	switch {
	case refused:
		return false
	case !passed:
		if g.turn.acquire(g.ctx) != nil && !agent {
			g.mu.Lock()
			g.refused = true
			g.mu.Unlock()
			return false
		}
		g.startClock()
		at = time.Now().UTC()
	}
	g.mu.Lock()
	g.started = true
	g.mu.Unlock()
	g.onStart(at)
	return true
}

// outcome reports whether settle started the run, and whether the run
// was stopped before it started. A run without a gate was started before
// its driver's Start.
func (g *startGate) outcome() (started, refused bool) {
	if g == nil {
		return true, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.started, g.refused
}
