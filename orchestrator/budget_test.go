package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// spender reports n model calls of tokens each (400 input), then
// finishes; reported counts how many usage reports it got out.
func spender(n int, tokens int64, reported *int) scenario {
	return func(ctx context.Context, a *fakeAgent) error {
		if !a.ready(ctx) {
			return nil
		}
		for i := range n {
			p := lux.NewProgress(fmt.Sprintf("u%d", i), lux.KindUsage, &lux.UsageReport{TokenUsage: lux.TokenUsage{Input: tokens}})
			if !a.emit(ctx, lux.Event{Type: lux.EventProgress, Progress: &p}) {
				return nil
			}
			*reported = i + 1
		}
		a.done(ctx, &lux.TokenUsage{Input: int64(n) * tokens})
		return nil
	}
}

// An agent whose usage reports pass the case's maxTokens is stopped as
// they arrive: the run ends with exit reason budget, a failure of the
// agent, its usage what it reported until then.
func TestRunStoppedByItsTokenBudget(t *testing.T) {
	reported := 0
	c := &lux.Case{Prompt: "p", Driver: driverRef(addScenario(t, spender(10, 400, &reported))), MaxTokens: 1000}
	res, err := New(testRegistry(t), Options{RunsRoot: t.TempDir()}).Run(context.Background(), c)
	require.NoError(t, err)
	assert.Equal(t, lux.ExitBudget, res.Metadata.ExitReason)
	assert.Contains(t, res.Metadata.Reason, "spent 1200 tokens, over the run's maxTokens budget of 1000")
	assert.Nil(t, res.Metadata.OperationalFailure, "the agent spent too much: not a failure of the harness")
	assert.Nil(t, res.Failure)
	assert.Equal(t, record.VerdictFail, record.RunVerdict(res.Metadata, res.Grading))
	require.NotNil(t, res.Metadata.Usage.Agent)
	assert.Equal(t, int64(1200), res.Metadata.Usage.Agent.Total())
	assert.Less(t, reported, 10, "the agent was stopped")

	events, err := record.ReadEvents(filepath.Join(res.Dir, record.EventsFile))
	require.NoError(t, err)
	var last lux.Event
	usage := 0
	for _, e := range events {
		if e.Type == lux.EventProgress && e.Progress.Usage != nil {
			usage++
		}
		if e.Terminal() {
			last = e
		}
	}
	assert.Equal(t, 3, usage, "the report that passed the budget is recorded, none after it")
	require.NotNil(t, last.Error)
	assert.Equal(t, lux.ExitBudget, last.Error.ExitReason)
}

// Options.RunBudget applies to the cases that set none; a case's own
// limit wins; a cost reported at the end past maxCostUsd turns the run's
// done into budget.
func TestRunBudgetFromOptionsAndCost(t *testing.T) {
	reported := 0
	under := &lux.Case{Prompt: "p", Driver: driverRef(addScenario(t, spender(3, 400, &reported))), MaxTokens: 5000}
	o := New(testRegistry(t), Options{RunsRoot: t.TempDir(), RunBudget: Budget{MaxTokens: 500}})
	res, err := o.Run(context.Background(), under)
	require.NoError(t, err)
	assert.Equal(t, lux.ExitDone, res.Metadata.ExitReason, "the case's own limit wins")

	over := &lux.Case{Prompt: "p", Driver: driverRef(addScenario(t, spender(3, 400, &reported)))}
	res, err = o.Run(context.Background(), over)
	require.NoError(t, err)
	assert.Equal(t, lux.ExitBudget, res.Metadata.ExitReason)

	cost := 0.75
	name := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		a.ready(ctx)
		a.emit(ctx, lux.Event{Type: lux.EventDone, Done: &lux.Done{Usage: &lux.TokenUsage{Output: 10}, CostUSD: &cost}})
		return nil
	})
	res, err = New(testRegistry(t), Options{RunsRoot: t.TempDir()}).Run(context.Background(),
		&lux.Case{Prompt: "p", Driver: driverRef(name), MaxCostUSD: 0.5})
	require.NoError(t, err)
	assert.Equal(t, lux.ExitBudget, res.Metadata.ExitReason)
	assert.Contains(t, res.Metadata.Reason, "cost of $0.7500 at its end, over the run's maxCostUsd budget of $0.5000")
	require.NotNil(t, res.Metadata.Usage.AgentCostUSD)
	assert.Equal(t, 0.75, *res.Metadata.Usage.AgentCostUSD)
}

// Once the suite's runs spent its budget no further run starts: those are
// skipped, suite.json says the budget stopped it, and RunSuite returns
// ErrBudget; resuming the suite runs them.
func TestSuiteBudgetStopsLaunchingRuns(t *testing.T) {
	root := t.TempDir()
	var cases []*lux.Case
	for i := range 3 {
		reported := 0
		cases = append(cases, &lux.Case{ID: fmt.Sprintf("c%d", i), Prompt: "p", Driver: driverRef(addScenario(t, spender(1, 60, &reported)))})
	}
	o := New(testRegistry(t), Options{RunsRoot: root, SuiteBudget: Budget{MaxTokens: 100}})
	res, err := o.RunSuite(context.Background(), cases)
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrBudget), err)
	assert.Contains(t, err.Error(), "the suite's maxTokens budget of 100 is used up: 120 tokens spent by 2 runs; 1 run was not started")
	require.NotNil(t, res)
	m := res.Manifest
	assert.Equal(t, record.StoppedByBudget, m.StoppedBy)
	assert.Contains(t, m.Error, "maxTokens budget of 100 is used up")
	assert.Equal(t, []record.ItemStatus{record.ItemCompleted, record.ItemCompleted, record.ItemSkipped},
		[]record.ItemStatus{m.Items[0].Status, m.Items[1].Status, m.Items[2].Status})
	onDisk, rerr := record.ReadSuite(res.Dir)
	require.NoError(t, rerr)
	assert.Equal(t, record.StoppedByBudget, onDisk.Manifest.StoppedBy)

	resumed, err := New(testRegistry(t), Options{RunsRoot: root}).ResumeSuite(context.Background(), res.Dir, cases)
	require.NoError(t, err)
	assert.Empty(t, resumed.Manifest.StoppedBy, "a resumed suite that ran everything is no longer stopped")
	assert.Equal(t, record.ItemCompleted, resumed.Manifest.Items[2].Status)
}
