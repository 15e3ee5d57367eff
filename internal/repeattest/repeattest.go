// Package repeattest checks, for driver tests, that repeated runs of one
// case are repetitions of one measurement: every run of a case has the same
// identity hash, and a comparison of two suites of the same cases pairs
// every case.
package repeattest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// Suites runs cases as two suites of two repetitions each through an
// Orchestrator on reg with opts (Repetitions is set to 2, RunsRoot to a
// fresh directory when empty), then checks that the four runs of each
// case share one identity hash and that comparing the two suites pairs
// every case with no identity mismatch. It returns the comparison.
func Suites(t *testing.T, ctx context.Context, reg *lux.Registry, opts orchestrator.Options, cases []*lux.Case) *compare.SuiteComparison {
	t.Helper()
	if opts.RunsRoot == "" {
		opts.RunsRoot = filepath.Join(t.TempDir(), "runs")
	}
	opts.Repetitions = 2
	o := orchestrator.New(reg, opts)
	var suites []*record.Suite
	hashes := map[string]map[string]string{} // case id -> identity hash -> a run dir
	for range 2 {
		res, err := o.RunSuite(ctx, cases)
		require.NoError(t, err)
		suites = append(suites, res)
		for _, it := range res.Manifest.Items {
			require.NotEmpty(t, it.RunDir, "case %s repetition %d has no run: %s", it.CaseID, it.Repetition, it.Error)
			dir := filepath.Join(res.Dir, filepath.FromSlash(it.RunDir))
			m, _, err := record.ReadMetadata(dir)
			require.NoError(t, err)
			if hashes[it.CaseID] == nil {
				hashes[it.CaseID] = map[string]string{}
			}
			hashes[it.CaseID][record.IdentityHash(m)] = dir
		}
	}
	for id, hs := range hashes {
		if len(hs) > 1 {
			var dirs []string
			for _, d := range hs {
				dirs = append(dirs, d)
			}
			cmpRes, err := compare.Runs(ctx, dirs[0], dirs[1], compare.Options{})
			require.NoError(t, err)
			t.Errorf("case %s: its runs have %d identity hashes, not one; first two differ in: %+v", id, len(hs), cmpRes.Mismatches)
		}
	}
	c, err := compare.Suites(ctx, suites[0].Dir, suites[1].Dir, compare.Options{})
	require.NoError(t, err)
	assert.Empty(t, c.Mismatches, "identity mismatches between two suites of the same cases")
	assert.Equal(t, len(cases), c.Counts.Paired, "every case is paired")
	assert.NotEqual(t, compare.NotComparable, c.Verdict, "reasons: %v", c.Reasons)
	return c
}
