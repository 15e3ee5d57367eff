package record_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/internal/golden"
	"github.com/luxeval/lux/record"
)

// TestRecordsWrittenEarlierReadTheSame reads a runs root written by lux
// itself (testdata/golden/runs: two suites of sealed runs, one run retried,
// and one unsealed run edited by hand to carry an operational failure, an
// incomplete grading and a judge's usage) and compares everything read
// with what this package read from it when the records were made
// (testdata/golden/read.json). The record formats change only by adding
// fields: a type moved or renamed must still read these files into the
// same values, and the seals must still verify.
func TestRecordsWrittenEarlierReadTheSame(t *testing.T) {
	root := filepath.Join("testdata", "golden", "runs")
	type runRead struct {
		Dir       string
		Seal      record.SealState
		Case      any
		Metadata  any
		Grading   any
		Artifacts any
		Events    any
	}
	type suiteRead struct {
		Dir      string
		Seal     record.SealState
		Manifest any
		Summary  any
	}
	var got struct {
		Runs   []runRead
		Suites []suiteRead
	}
	runs, err := record.FindRuns(root)
	require.NoError(t, err)
	require.Len(t, runs, 4)
	for _, dir := range runs {
		r, err := record.ReadRun(dir, record.ReadOptions{Events: true})
		require.NoError(t, err, dir)
		rel, err := filepath.Rel(root, dir)
		require.NoError(t, err)
		got.Runs = append(got.Runs, runRead{filepath.ToSlash(rel), r.Seal, r.Case, r.Metadata, r.Grading, r.Artifacts, r.Events})
	}
	suites, err := record.FindSuites(root)
	require.NoError(t, err)
	require.Len(t, suites, 2)
	for _, dir := range suites {
		s, err := record.ReadSuite(dir)
		require.NoError(t, err, dir)
		rel, err := filepath.Rel(root, dir)
		require.NoError(t, err)
		got.Suites = append(got.Suites, suiteRead{filepath.ToSlash(rel), s.Seal, s.Manifest, s.Summary})
	}
	b, err := json.MarshalIndent(got, "", "  ")
	require.NoError(t, err)
	golden.Equal(t, filepath.Join("testdata", "golden", "read.json"), append(b, '\n'))
}
