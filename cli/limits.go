package cli

import (
	"flag"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/luxeval/lux/internal/textline"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// limitFlags are lux run's retries of infrastructure failures and its
// budgets, per run and per suite.
type limitFlags struct {
	retries                   int
	backoff                   time.Duration
	maxTokens, suiteMaxTokens int64
	maxCost, suiteMaxCost     float64
}

func (f *limitFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.retries, "retries", 0, "attempt a run up to this many more times when it failed for infrastructure before the agent did anything (the CLI could not start, the model API overloaded or unreachable); agent failures are never retried")
	fs.DurationVar(&f.backoff, "retry-backoff", orchestrator.DefaultRetryBackoff, "the wait before a run's first retry, doubled before each next one")
	fs.Int64Var(&f.maxTokens, "max-tokens", 0, "each run's token budget, for cases that set no maxTokens: past it the run is stopped (exit reason budget)")
	fs.Float64Var(&f.maxCost, "max-cost", 0, "each run's cost budget in US dollars, for cases that set no maxCostUsd (exit reason budget)")
	fs.Int64Var(&f.suiteMaxTokens, "suite-max-tokens", 0, "the suite's token budget (agent, answerer and judges): once spent, no further run starts")
	fs.Float64Var(&f.suiteMaxCost, "suite-max-cost", 0, "the suite's cost budget in US dollars: once spent, no further run starts")
}

// options fills opts from the flags.
func (f *limitFlags) options(opts *orchestrator.Options) error {
	switch {
	case f.retries < 0:
		return fmt.Errorf("-retries: must be 0 or more, got %d", f.retries)
	case f.maxTokens < 0:
		return fmt.Errorf("-max-tokens: must be positive, got %d", f.maxTokens)
	case f.suiteMaxTokens < 0:
		return fmt.Errorf("-suite-max-tokens: must be positive, got %d", f.suiteMaxTokens)
	case f.maxCost < 0 || math.IsNaN(f.maxCost) || math.IsInf(f.maxCost, 0):
		return fmt.Errorf("-max-cost: must be a positive number of US dollars, got %v", f.maxCost)
	case f.suiteMaxCost < 0 || math.IsNaN(f.suiteMaxCost) || math.IsInf(f.suiteMaxCost, 0):
		return fmt.Errorf("-suite-max-cost: must be a positive number of US dollars, got %v", f.suiteMaxCost)
	}
	opts.Retries, opts.RetryBackoff = f.retries, f.backoff
	opts.RunBudget = orchestrator.Budget{MaxTokens: f.maxTokens, MaxCostUSD: f.maxCost}
	opts.SuiteBudget = orchestrator.Budget{MaxTokens: f.suiteMaxTokens, MaxCostUSD: f.suiteMaxCost}
	return nil
}

// writeAttempts lists a run's attempts, when it was retried: each one's
// outcome, classification and where its record is kept.
func writeAttempts(w io.Writer, attempts []record.Attempt) {
	if len(attempts) < 2 {
		return
	}
	for _, a := range attempts {
		line := fmt.Sprintf("attempt %d:   %s", a.Attempt, a.ExitReason)
		if a.Failure != "" {
			line += fmt.Sprintf(" (%s: %s)", a.Failure, a.Cause)
		}
		if a.Reason != "" {
			line += " — " + textline.One(a.Reason, 200)
		}
		if a.Retried {
			line += fmt.Sprintf("; retried after %s", time.Duration(a.BackoffMs)*time.Millisecond)
		}
		if a.Dir != "" {
			line += "; record in " + a.Dir
		}
		fmt.Fprintln(w, line)
	}
}
