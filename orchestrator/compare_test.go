package orchestrator

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/compare"
)

// The in-process comparisons of results agree with package compare on
// their records: a suite against itself or its rerun is no regression,
// and runs of different cases are not comparable.
func TestCompareInProcess(t *testing.T) {
	o := newTestOrchestrator(t, Options{Repetitions: 2})
	scen := addScenario(t, writeHello)
	cases := []*lux.Case{
		{ID: "one", Prompt: "p", Driver: driverRef(scen), Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}},
		{ID: "two", Prompt: "q", Driver: driverRef(scen), Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}},
	}
	ctx := context.Background()
	a, err := o.RunSuite(ctx, cases)
	require.NoError(t, err)
	b, err := o.RunSuite(ctx, cases)
	require.NoError(t, err)

	fromDisk, err := compare.Suites(ctx, a.Dir, b.Dir, compare.Options{})
	require.NoError(t, err)
	assert.Equal(t, compare.NoDifference, fromDisk.Verdict)
	assert.False(t, fromDisk.Gate.Failed)
	fromMemory, err := CompareSuites(ctx, a, b, compare.Options{})
	require.NoError(t, err)
	assert.Equal(t, fromDisk.Verdict, fromMemory.Verdict)
	assert.Equal(t, fromDisk.Effects, fromMemory.Effects)

	one, err := o.Run(ctx, cases[0])
	require.NoError(t, err)
	oneAgain, err := o.Run(ctx, cases[0])
	require.NoError(t, err)
	two, err := o.Run(ctx, cases[1])
	require.NoError(t, err)

	same, err := CompareRuns(ctx, one, oneAgain, compare.Options{})
	require.NoError(t, err)
	assert.Equal(t, compare.NoDifference, same.Verdict)
	sameOnDisk, err := compare.Runs(ctx, one.Dir, oneAgain.Dir, compare.Options{})
	require.NoError(t, err)
	assert.Equal(t, same.Verdict, sameOnDisk.Verdict)

	different, err := CompareRuns(ctx, one, two, compare.Options{})
	require.NoError(t, err)
	assert.Equal(t, compare.NotComparable, different.Verdict)
	assert.True(t, different.Gate.Failed)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = CompareRuns(cancelled, one, two, compare.Options{})
	assert.ErrorIs(t, err, context.Canceled)
	_, err = CompareSuites(cancelled, a, b, compare.Options{})
	assert.ErrorIs(t, err, context.Canceled)
}
