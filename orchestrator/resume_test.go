package orchestrator

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

func TestResumeSuite(t *testing.T) {
	pass := []lux.AssertionSpec{{Type: "fixed", Config: map[string]any{"score": 1, "passed": true}}}
	hello := &lux.Case{ID: "hello", Prompt: "p", Driver: driverRef(addScenario(t, writeHello)), Assertions: pass}
	root := filepath.Join(t.TempDir(), "runs")
	o := newTestOrchestrator(t, Options{RunsRoot: root, Repetitions: 2})

	// A suite cancelled before it started anything: every item is not run.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := o.RunSuite(ctx, []*lux.Case{hello})
	require.Error(t, err)
	require.Equal(t, []int{0, 1}, Missing(res.Manifest))

	t.Run("a case is missing", func(t *testing.T) {
		_, err := o.ResumeSuite(context.Background(), res.Dir, nil)
		require.ErrorContains(t, err, `has runs of ["hello"] to do, but no case with that id was given`)
	})
	t.Run("another runs root", func(t *testing.T) {
		other := newTestOrchestrator(t, Options{})
		_, err := other.ResumeSuite(context.Background(), res.Dir, []*lux.Case{hello})
		require.ErrorContains(t, err, "is not a suite directory under the runs root")
	})
	t.Run("another environment", func(t *testing.T) {
		other := newTestOrchestrator(t, Options{RunsRoot: root, Environment: map[string]any{"image": "x"}})
		_, err := other.ResumeSuite(context.Background(), res.Dir, []*lux.Case{hello})
		require.ErrorContains(t, err, `declares the environment none, this run {"image":"x"}`)
	})

	got, err := o.ResumeSuite(context.Background(), res.Dir, []*lux.Case{hello})
	require.NoError(t, err)
	assert.Equal(t, res.Dir, got.Dir)
	assert.Equal(t, record.SuitePassed, got.Manifest.Status)
	assert.Equal(t, 2, got.Summary.Totals.Passed)
	for i, it := range got.Manifest.Items {
		assert.Equal(t, i+1, it.Repetition, "each item keeps its repetition")
		assert.Equal(t, record.VerdictPass, it.Verdict())
	}
	read, err := record.ReadSuite(res.Dir)
	require.NoError(t, err)
	assert.Equal(t, got.Manifest.Items, read.Manifest.Items)

	_, err = o.ResumeSuite(context.Background(), res.Dir, []*lux.Case{hello})
	require.True(t, errors.Is(err, ErrNothingToResume), "%v", err)
}
