package record

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A grading that cannot be written leaves nothing behind: the run's other
// gradings still read, and no empty file takes a name.
func TestWriteRegradingFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	good := &Regrading{SchemaVersion: 1, GradedAt: at, Report: sampleGrading()}
	_, err := Writer{}.WriteRegrading(dir, good)
	require.NoError(t, err)

	bad := &Regrading{SchemaVersion: 1, GradedAt: at, Report: &Grading{
		Assertions: []AssertionOutcome{{ID: "x", Detail: make(chan int)}}}}
	_, err = Writer{}.WriteRegrading(dir, bad)
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrUnencodable))

	got, err := ReadRegradings(dir)
	require.NoError(t, err)
	require.Len(t, got, 1)
	entries, err := os.ReadDir(filepath.Join(dir, GradingsDir))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing but the good grading")
}

// Gradings written at once get names of their own, each complete.
func TestWriteRegradingConcurrently(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 20
	paths := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			paths[i], errs[i] = Writer{}.WriteRegrading(dir, &Regrading{SchemaVersion: 1, GradedAt: at, Report: sampleGrading()})
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := range n {
		require.NoError(t, errs[i])
		assert.False(t, seen[paths[i]], paths[i])
		seen[paths[i]] = true
	}
	got, err := ReadRegradings(dir)
	require.NoError(t, err)
	assert.Len(t, got, n)
}
