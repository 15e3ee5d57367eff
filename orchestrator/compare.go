package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/record"
)

// Comparisons of what an Orchestrator returned, computed in-process by
// package compare from the results in memory, so a program that just ran
// two suites compares them without reading them back. To compare records
// on disk, call compare.Runs, compare.Suites or compare.RunSets.

// CompareRuns compares two runs an Orchestrator returned, a the baseline
// (see compare.RunRecords); each run's case.json is read from its
// directory, when it has one, for a readable diff of the cases.
func CompareRuns(ctx context.Context, a, b *RunResult, opts compare.Options) (*compare.RunComparison, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("orchestrator: compare: %w", err)
	}
	ra, err := runRecord("A", a)
	if err != nil {
		return nil, err
	}
	rb, err := runRecord("B", b)
	if err != nil {
		return nil, err
	}
	return compare.RunRecords(ra, rb, opts)
}

// CompareSuites compares two suites an Orchestrator returned, a the
// baseline (see compare.SuiteRecords), from their summaries in memory or,
// for a suite without one, from its manifest and its runs' records.
func CompareSuites(ctx context.Context, a, b *SuiteResult, opts compare.Options) (*compare.SuiteComparison, error) {
	return compare.SuiteRecords(ctx, suiteRecord(a), suiteRecord(b), opts)
}

func runRecord(side string, r *RunResult) (*record.Run, error) {
	if r == nil || r.Metadata == nil {
		return nil, fmt.Errorf("orchestrator: compare: run %s has no result", side)
	}
	rec := &record.Run{Dir: r.Dir, Metadata: r.Metadata, Grading: r.Grading, Artifacts: r.Artifacts}
	if r.Dir != "" {
		var c record.CaseRecord
		err := record.ReadJSON(filepath.Join(r.Dir, record.CaseFile), &c)
		switch {
		case err == nil:
			c.Path = c.CasePath
			rec.Case = &c
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("orchestrator: compare: %w", err)
		}
	}
	return rec, nil
}

func suiteRecord(s *SuiteResult) *record.Suite {
	if s == nil {
		return nil
	}
	return &record.Suite{Dir: s.Dir, Manifest: s.Manifest, Summary: s.Summary}
}
