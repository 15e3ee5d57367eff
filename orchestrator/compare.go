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

// Comparisons, computed in-process by package compare: the Orchestrator
// offers them next to the runs and suites it produces. Paths are used as
// given (relative to the working directory, not to RunsRoot).

// CompareRuns compares the run directories a (the baseline) and b; see
// compare.Runs.
func (o *Orchestrator) CompareRuns(ctx context.Context, a, b string, opts compare.Options) (*compare.RunComparison, error) {
	return compare.Runs(ctx, a, b, opts)
}

// CompareRunResults compares two runs this Orchestrator returned, from
// memory; each run's case.json is read from its directory when it has one,
// for a readable diff of the cases.
func (o *Orchestrator) CompareRunResults(a, b *RunResult, opts compare.Options) (*compare.RunComparison, error) {
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

// CompareSuites compares the suite directories a (the baseline) and b;
// see compare.Suites.
func (o *Orchestrator) CompareSuites(ctx context.Context, a, b string, opts compare.Options) (*compare.SuiteComparison, error) {
	return compare.Suites(ctx, a, b, opts)
}

// CompareSuiteResults compares two suites this Orchestrator returned, from
// their summaries in memory (or, for a suite without one, from its
// manifest and its runs' records).
func (o *Orchestrator) CompareSuiteResults(ctx context.Context, a, b *SuiteResult, opts compare.Options) (*compare.SuiteComparison, error) {
	sa, sb := suiteRecord(a), suiteRecord(b)
	return compare.SuiteRecords(ctx, sa, sb, opts)
}

// CompareRunSets compares two lists of run directories as suites (runs of
// one canonical case are its repetitions); see compare.RunSets.
func (o *Orchestrator) CompareRunSets(ctx context.Context, a, b []string, opts compare.Options) (*compare.SuiteComparison, error) {
	return compare.RunSets(ctx, a, b, opts)
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
