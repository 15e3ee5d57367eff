package record_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/record"
)

// The summary of each suite of testdata/golden/runs, rebuilt from its
// manifest and its runs' records, is its suite-summary.json as lux wrote
// it then, byte for byte: built from the
// records or from their briefs alike.
func TestSummaryRebuiltIsTheOneWritten(t *testing.T) {
	suites, err := record.FindSuites(filepath.Join("testdata", "golden", "runs"))
	require.NoError(t, err)
	require.NotEmpty(t, suites)
	for _, dir := range suites {
		s, err := record.ReadSuite(dir)
		require.NoError(t, err)
		want, err := os.ReadFile(filepath.Join(dir, record.SuiteSummaryFile))
		require.NoError(t, err)
		for _, briefs := range []bool{false, true} {
			b := record.NewSummaryBuilder(s.Manifest.SuiteID)
			for i, it := range s.Manifest.Items {
				m, g := s.ItemRecord(i)
				if briefs {
					b.AddBrief(i, it, record.NewRunBrief(m, g))
				} else {
					b.Add(i, it, m, g)
				}
			}
			out := filepath.Join(t.TempDir(), "summary.json")
			require.NoError(t, record.WriteJSON(out, b.Build(s.Summary.Status, s.Summary.GeneratedAt)))
			got, err := os.ReadFile(out)
			require.NoError(t, err)
			require.Equal(t, string(want), string(got), "%s, briefs %v", dir, briefs)
		}
	}
}
