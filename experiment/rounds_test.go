package experiment

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inProcessRounds is a RoundsExecutor that runs the round loop's rule in
// this process, as a workflow would elsewhere, and executes each run
// here; it keeps what it was asked.
type inProcessRounds struct {
	reg  *lux.Registry
	root string

	mu     sync.Mutex
	rule   *SeqRule
	last   *RoundRecord
	starts []RoundsStart
	begun  []int
	keys   map[string]bool // the keys of the round begun
	stray  []string        // runs executed outside a round begun
	// failEnd, when set, makes End of that round fail once the rule
	// observed it, as if the experiment lost the loop's answer.
	failEnd int
	// active, when set, replaces the variants the loop says run a round.
	active []string
	// alter, when set, changes each record the loop answers with.
	alter func(*RoundRecord)
}

func (x *inProcessRounds) Execute(ctx context.Context, run *orchestrator.PlannedRun) (*record.Run, error) {
	x.mu.Lock()
	if !x.keys[run.Key] {
		x.stray = append(x.stray, run.Key)
	}
	x.mu.Unlock()
	return orchestrator.ExecutePlanned(ctx, x.reg, orchestrator.Options{RunsRoot: x.root}, run, nil)
}

func (x *inProcessRounds) StartRounds(ctx context.Context, start RoundsStart) (Rounds, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.starts = append(x.starts, start)
	if x.rule != nil {
		return x, nil // the loop still running, taken up
	}
	rule, err := NewSeqRule(start.Rule)
	if err != nil {
		return nil, err
	}
	if start.Last != nil {
		if err := rule.Resume(*start.Last); err != nil {
			return nil, err
		}
	}
	x.rule, x.last = rule, start.Last
	return x, nil
}

func (x *inProcessRounds) Last(context.Context) (*RoundRecord, error) { return x.last, nil }

func (x *inProcessRounds) Begin(_ context.Context, round int, units []RoundUnit) (*RoundOrder, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.begun = append(x.begun, round)
	x.keys = map[string]bool{}
	for _, u := range units {
		x.keys[u.Key] = true
	}
	active := x.rule.Active()
	if x.active != nil {
		active = x.active
	}
	return &RoundOrder{Round: round, Active: active}, nil
}

func (x *inProcessRounds) End(_ context.Context, round int, recorded []RoundSample) (*RoundRecord, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	rec, err := x.rule.Observe(round, recorded)
	if err != nil {
		return nil, err
	}
	if x.alter != nil {
		x.alter(&rec)
	}
	x.last = &rec
	if round == x.failEnd {
		return nil, errors.New("the answer was lost")
	}
	return &rec, nil
}

func (x *inProcessRounds) Close() error { return nil }

// An executor that owns the round loop (RoundsExecutor) is asked for each
// round and its rule decides; the experiment runs the units it says,
// journals the records it returns, and reaches the decision and the
// round records of a local run.
func TestARoundsExecutorOwnsTheLoopAndReachesTheLocalDecision(t *testing.T) {
	f, c := promoteFixture(t)
	sequentialize(c)
	reg := testRegistry(t)
	local, err := Run(ctx(t), reg, c, Options{RunsRoot: filepath.Join(f.dir, "local-runs"), Concurrency: 2})
	require.NoError(t, err)

	root := filepath.Join(f.dir, ".lux-runs")
	x := &inProcessRounds{reg: reg, root: root}
	res, err := Run(ctx(t), reg, c, Options{RunsRoot: root, Concurrency: 2, Executor: x})
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 3}, x.begun, "the executor was asked for every round")
	assert.Empty(t, x.stray, "every run was of the round begun")
	require.Len(t, x.starts, 1)
	assert.Equal(t, filepath.Base(res.Dir), x.starts[0].Experiment)
	assert.Nil(t, x.starts[0].Last)
	assert.Equal(t, local.Decision.Outcome, res.Decision.Outcome)
	assert.Equal(t, local.Decision.Champion, res.Decision.Champion)
	assert.Equal(t, local.Decision.Sequential, res.Decision.Sequential)
	assert.Equal(t, journalRounds(t, local.Dir), journalRounds(t, res.Dir))
	_, err = Open(res.Dir) // the journal's rounds replay from the units
	require.NoError(t, err)
}

// A loop that decided a round the journal lacks (the experiment stopped
// after the loop decided it, before journaling it) hands its record over
// first when the experiment resumes: the experiment journals it, then
// asks for the next round, and reaches the local decision.
func TestARoundsExecutorAheadOfTheJournalIsJournaledFirst(t *testing.T) {
	f, c := promoteFixture(t)
	sequentialize(c)
	reg := testRegistry(t)
	local, err := Run(ctx(t), reg, c, Options{RunsRoot: filepath.Join(f.dir, "local-runs")})
	require.NoError(t, err)

	root := filepath.Join(f.dir, ".lux-runs")
	x := &inProcessRounds{reg: reg, root: root, failEnd: 2}
	first, err := Run(ctx(t), reg, c, Options{RunsRoot: root, Executor: x})
	require.Error(t, err)
	require.Len(t, journalRounds(t, first.Dir), 1, "round 2 decided by the loop, not journaled")
	require.Equal(t, 2, x.last.Round)

	x.failEnd = 0
	res, err := Resume(ctx(t), reg, first.Dir, c, Options{RunsRoot: root, Executor: x})
	require.NoError(t, err)
	require.Len(t, x.starts, 2)
	assert.Equal(t, 1, x.starts[1].Last.Round, "resumed from the journal's round")
	assert.Equal(t, []int{1, 2, 3}, x.begun, "round 2 was not asked for again")
	assert.Equal(t, journalRounds(t, local.Dir), journalRounds(t, res.Dir))
	assert.Equal(t, local.Decision.Champion, res.Decision.Champion)
	assert.Equal(t, local.Decision.Sequential, res.Decision.Sequential)
}

// A loop whose variants for a round are not those the journal's rule
// gives is refused: the experiment does not run a campaign it cannot
// account for.
func TestARoundsExecutorDisagreeingWithTheJournalIsRefused(t *testing.T) {
	f, c := promoteFixture(t)
	sequentialize(c)
	reg := testRegistry(t)
	x := &inProcessRounds{reg: reg, root: filepath.Join(f.dir, ".lux-runs"), active: []string{"variant-x"}}
	res, err := Run(ctx(t), reg, c, Options{RunsRoot: x.root, Executor: x})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the round loop runs [variant-x] in round 1, the journal's rule [variant-x variant-y]")
	assert.Equal(t, StatusFailed, res.Manifest.Status)
	assert.True(t, slices.Equal([]int{1}, x.begun))
}

// A record from the loop that the rule does not give on the recorded
// units is refused before it reaches the journal: a later open would
// refuse the ledger.
func TestARoundsExecutorRecordNotTheRulesIsRefused(t *testing.T) {
	f, c := promoteFixture(t)
	sequentialize(c)
	reg := testRegistry(t)
	x := &inProcessRounds{reg: reg, root: filepath.Join(f.dir, ".lux-runs"), alter: func(rec *RoundRecord) { rec.Gates[0].Point.LogE += 1e-9 }}
	res, err := Run(ctx(t), reg, c, Options{RunsRoot: x.root, Executor: x})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the round loop's record of round 1 is not the one the rule gives on the recorded units")
	assert.Empty(t, journalRounds(t, res.Dir))
}
