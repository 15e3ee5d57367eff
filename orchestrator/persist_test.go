package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run whose record could not be written is not counted as a pass: its
// suite item carries the error and the suite fails, while the other runs
// are recorded as usual.
func TestSuiteItemOfARunWhoseRecordFailed(t *testing.T) {
	// Something takes run.json's place in the run directory, as a failing
	// disk would make it unwritable: run.json cannot be written.
	root := filepath.Join(t.TempDir(), "runs")
	breaks := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		if !a.ready(ctx) {
			return nil
		}
		dirs, err := filepath.Glob(filepath.Join(root, "breaks", "fake", "*"))
		if err != nil || len(dirs) != 1 {
			return fmt.Errorf("run directory not found: %v %v", dirs, err)
		}
		if err := os.MkdirAll(filepath.Join(dirs[0], record.MetadataFile, "x"), 0o700); err != nil {
			return err
		}
		a.done(ctx, nil)
		return nil
	})
	pass := []lux.AssertionSpec{{Type: "fixed", Config: map[string]any{"score": 1, "passed": true}}}
	o := newTestOrchestrator(t, Options{RunsRoot: root})
	res, err := o.RunSuite(context.Background(), []*lux.Case{
		{ID: "breaks", Prompt: "p", Driver: driverRef(breaks), Assertions: pass},
		{ID: "fine", Prompt: "p", Driver: driverRef(addScenario(t, writeHello)), Assertions: pass},
	})
	require.NoError(t, err, "the suite's own record is complete")
	assert.Equal(t, record.SuiteFailed, res.Manifest.Status)

	broken, fine := res.Manifest.Items[0], res.Manifest.Items[1]
	assert.Equal(t, record.ItemCompleted, broken.Status)
	assert.Contains(t, broken.Error, "the record is incomplete")
	assert.Contains(t, broken.Error, filepath.Join(res.Dir, broken.RunDir, record.MetadataFile))
	assert.Nil(t, broken.Passed, "a run without its record has no verdict")
	assert.Equal(t, record.VerdictError, broken.Verdict())
	assert.Equal(t, ptr(true), fine.Passed)

	assert.Equal(t, 1, res.Summary.Totals.Passed)
	assert.Equal(t, 1, res.Summary.Totals.Errored)
	assert.Equal(t, 0, res.Summary.Totals.Failed)
	read, err := record.ReadSuite(res.Dir)
	require.NoError(t, err)
	assert.Equal(t, res.Manifest.Items, read.Manifest.Items)
}
