package orchestrator

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/compare"
)

// What an Orchestrator returns is compared by package compare from the
// records it left on disk: a suite against its rerun is no regression,
// and runs of different cases are not comparable.
func TestResultsCompare(t *testing.T) {
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

	one, err := o.Run(ctx, cases[0])
	require.NoError(t, err)
	oneAgain, err := o.Run(ctx, cases[0])
	require.NoError(t, err)
	two, err := o.Run(ctx, cases[1])
	require.NoError(t, err)

	same, err := compare.Runs(ctx, one.Dir, oneAgain.Dir, compare.Options{})
	require.NoError(t, err)
	assert.Equal(t, compare.NoDifference, same.Verdict)

	different, err := compare.Runs(ctx, one.Dir, two.Dir, compare.Options{})
	require.NoError(t, err)
	assert.Equal(t, compare.NotComparable, different.Verdict)
	assert.True(t, different.Gate.Failed)
}
