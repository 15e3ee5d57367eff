package orchestrator

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// ErrBudget reports a suite stopped by its budget (Options.SuiteBudget):
// the runs not started are marked skipped, and ResumeSuite runs them.
var ErrBudget = errors.New("orchestrator: budget used up")

// Budget limits what runs may spend. A zero field sets no limit.
type Budget struct {
	// MaxTokens bounds tokens: all four counts (input, output, cache read
	// and cache creation).
	MaxTokens int64
	// MaxCostUSD bounds cost in US dollars, as reported.
	MaxCostUSD float64
}

// IsZero reports whether b sets no limit.
func (b Budget) IsZero() bool { return b.MaxTokens <= 0 && b.MaxCostUSD <= 0 }

// runBudget enforces one run's budget from the agent's events as they
// arrive: its tokens summed from its usage reports (one per model call),
// its cost from what it reports (the built-in drivers report cost only
// with their terminal event, so a cost limit is enforced then).
type runBudget struct {
	limit  Budget
	tokens int64
	seen   bool // a usage report arrived
}

// newRunBudget is the budget of a run of p: the case's maxTokens and
// maxCostUsd, else the options' RunBudget field by field; nil for none.
func (o *Orchestrator) newRunBudget(p *plan) *runBudget {
	b := o.opts.RunBudget
	if p.c.MaxTokens > 0 {
		b.MaxTokens = p.c.MaxTokens
	}
	if p.c.MaxCostUSD > 0 {
		b.MaxCostUSD = p.c.MaxCostUSD
	}
	if b.IsZero() {
		return nil
	}
	return &runBudget{limit: b}
}

// over returns why e takes the agent past the budget, or "".
func (b *runBudget) over(e lux.Event) string {
	var (
		total *lux.TokenUsage
		cost  *float64
	)
	switch {
	case e.Type == lux.EventProgress && e.Progress != nil && e.Progress.Usage != nil:
		b.tokens += e.Progress.Usage.Total()
		b.seen = true
		if b.limit.MaxTokens > 0 && b.tokens > b.limit.MaxTokens {
			return fmt.Sprintf("the agent spent %d tokens, over the run's maxTokens budget of %d (summed from its usage reports)", b.tokens, b.limit.MaxTokens)
		}
		return ""
	case e.Type == lux.EventDone && e.Done != nil:
		total, cost = e.Done.Usage, e.Done.CostUSD
	default:
		return ""
	}
	if b.limit.MaxTokens > 0 && total != nil && total.Total() > b.limit.MaxTokens {
		return fmt.Sprintf("the agent reported %d tokens at its end, over the run's maxTokens budget of %d", total.Total(), b.limit.MaxTokens)
	}
	if b.limit.MaxCostUSD > 0 && cost != nil && *cost > b.limit.MaxCostUSD {
		return fmt.Sprintf("the agent reported a cost of $%.4f at its end, over the run's maxCostUsd budget of $%.4f", *cost, b.limit.MaxCostUSD)
	}
	return ""
}

// stopForBudget ends the run with exit reason budget when e takes the
// agent past its budget, and reports whether it did. A usage report over
// the budget is recorded, then the error event that ends the trajectory;
// a done event over it is replaced by that error event, which carries the
// usage and cost the agent reported. The run's agent usage is what was
// measured: the done event's, else the sum of the usage reports.
func (r *runState) stopForBudget(e lux.Event) bool {
	if r.budget == nil || r.failed() {
		return false
	}
	reason := r.budget.over(e)
	if reason == "" {
		return false
	}
	ev := &lux.ErrorEvent{ExitReason: lux.ExitBudget, Reason: reason}
	if e.Type == lux.EventDone {
		ev.Usage, ev.CostUSD = e.Done.Usage, e.Done.CostUSD
	} else {
		if !r.record(e) && r.failed() {
			return true
		}
		sum := lux.TokenUsage{}
		for _, x := range r.events {
			if x.Type == lux.EventProgress && x.Progress != nil && x.Progress.Usage != nil {
				sum = sum.Add(x.Progress.Usage.TokenUsage)
			}
		}
		ev.Usage = &sum
	}
	r.meta.Usage.Agent, r.meta.Usage.AgentCostUSD = ev.Usage, ev.CostUSD
	now := time.Now().UTC()
	if !r.record(lux.Event{Type: lux.EventError, Time: now, Error: ev}) && r.failed() {
		return true
	}
	r.end(outcome{exit: lux.ExitBudget, cause: agentFailure(reason)})
	return true
}

// suiteBudget stops a suite from starting runs once the runs it finished
// spent its budget: every token and dollar of each run, the agent's and
// the harness's (answerer and judges).
type suiteBudget struct {
	limit  Budget
	mu     sync.Mutex
	tokens int64
	cost   float64
	runs   int
	reason string // why it stopped; "" while it has not
	held   int    // runs not started because of it
}

// newSuiteBudget returns nil when Options.SuiteBudget sets no limit.
func (o *Orchestrator) newSuiteBudget() *suiteBudget {
	if o.opts.SuiteBudget.IsZero() {
		return nil
	}
	return &suiteBudget{limit: o.opts.SuiteBudget}
}

// add counts a finished run's spending.
func (b *suiteBudget) add(res *record.Run) {
	if b == nil || res == nil || res.Metadata == nil {
		return
	}
	u := res.Metadata.Usage
	b.mu.Lock()
	defer b.mu.Unlock()
	b.runs++
	if u.Agent != nil {
		b.tokens += u.Agent.Total()
	}
	b.tokens += u.Harness().Total()
	if u.AgentCostUSD != nil {
		b.cost += *u.AgentCostUSD
	}
	b.cost += u.HarnessCalls().CostUSD
	switch {
	case b.reason != "":
	case b.limit.MaxTokens > 0 && b.tokens >= b.limit.MaxTokens:
		b.reason = fmt.Sprintf("the suite's maxTokens budget of %d is used up: %d tokens spent by %d runs", b.limit.MaxTokens, b.tokens, b.runs)
	case b.limit.MaxCostUSD > 0 && b.cost >= b.limit.MaxCostUSD:
		b.reason = fmt.Sprintf("the suite's maxCostUsd budget of $%.2f is used up: $%.4f spent by %d runs", b.limit.MaxCostUSD, b.cost, b.runs)
	}
}

// hold reports whether the next run must not start, and counts it.
func (b *suiteBudget) hold() bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reason != "" {
		b.held++
		return true
	}
	return false
}

// stopped reports whether the budget kept a run from starting.
func (b *suiteBudget) stopped() bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held > 0
}

// message says why the suite stopped and what it left undone.
func (b *suiteBudget) message() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	runs := "runs were"
	if b.held == 1 {
		runs = "run was"
	}
	return fmt.Sprintf("%s; %d %s not started (resume the suite to run them)", b.reason, b.held, runs)
}

// mark records in the manifest that the budget stopped the suite, or
// clears what an earlier stop recorded (a resumed suite).
func (b *suiteBudget) mark(m *record.SuiteManifest) {
	switch {
	case b.stopped():
		m.StoppedBy, m.Error = record.StoppedByBudget, b.message()
	case m.StoppedBy == record.StoppedByBudget:
		m.StoppedBy, m.Error = "", ""
	}
}

// err is RunSuite's error for a suite the budget stopped.
func (b *suiteBudget) err(dir string) error {
	return fmt.Errorf("%w: suite %s: %s", ErrBudget, dir, strings.TrimSpace(b.message()))
}
