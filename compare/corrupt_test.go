package compare

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A metric that is NaN or infinite in a record is a corrupt record: a
// named error that says where, never a panic, and never a comparison
// that cannot be written as JSON.
func TestNonFiniteMetrics(t *testing.T) {
	good := func() *record.Suite { return rvSuite(rvPass("u", 1), rvPass("v", 2), rvPass("w", 3)) }
	for _, tc := range []struct {
		name string
		bad  func(s *record.Suite)
		want []string
	}{
		{"NaN duration", func(s *record.Suite) { s.Summary.Samples[1].Metrics["durationMs"] = math.NaN() }, []string{"durationMs", "v", "NaN"}},
		{"+Inf cost", func(s *record.Suite) { s.Summary.Samples[2].Metrics["cost.usd"] = math.Inf(1) }, []string{"cost.usd", "w", "+Inf"}},
		{"-Inf score", func(s *record.Suite) { s.Summary.Samples[0].Score = ptr(math.Inf(-1)) }, []string{"score", "u", "-Inf"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, side := range []string{"A", "B"} {
				a, b := good(), good()
				target := a
				if side == "B" {
					target = b
				}
				tc.bad(target)
				var c *SuiteComparison
				var err error
				require.NotPanics(t, func() { c, err = SuiteRecords(ctx, a, b, Options{AllMetrics: true}) })
				require.Error(t, err, "side %s", side)
				assert.Nil(t, c)
				assert.True(t, errors.Is(err, ErrCorrupt), "%v", err)
				for _, w := range tc.want {
					assert.Contains(t, err.Error(), w)
				}
				assert.Contains(t, err.Error(), "suite "+side)
			}
		})
	}
}

// Values a summary file can hold but whose sum overflows are corrupt too.
func TestOverflowingSum(t *testing.T) {
	mk := func(v string) string {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, record.SuiteFile), []byte(`{"suiteId":"s","items":[]}`), 0o600))
		sum := `{"suiteId":"s","totals":{"attempts":2},"samples":[
			{"caseId":"a","repetition":1,"exitReason":"done","casePassed":true,"identityHash":"h","metrics":{"cost.usd":` + v + `}},
			{"caseId":"a","repetition":2,"exitReason":"done","casePassed":true,"identityHash":"h","metrics":{"cost.usd":` + v + `}}]}`
		require.NoError(t, os.WriteFile(filepath.Join(dir, record.SuiteSummaryFile), []byte(sum), 0o600))
		return dir
	}
	a, b := mk("1"), mk("1e308")
	_, err := Suites(ctx, a, b, Options{})
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrCorrupt), "%v", err)
	assert.Contains(t, err.Error(), "suite B ("+b+"), case a repetition 2: the sum of cost.usd over the case's runs overflows")
}
