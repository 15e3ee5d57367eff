package cli_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/cli"
)

// lux compare -sequential adds the anytime-valid sign test to a suite
// comparison: beta fails in all 3 repetitions of the second suite, the
// other cases are unchanged, so 3 discordant pairs go to A; 3 losses give
// e = 2³/4 = 2 (two-sided, uniform prior), far from 1/α = 20.
func TestCompareSequentialReportsTheSignTest(t *testing.T) {
	reg := registry(t)
	before, after := brokenDependencySuites(t, reg, 3)

	_, out, errOut := run(t, reg, "compare", "-sequential", before, after)
	require.Contains(t, out, "sequential sign test (two-sided, sign-test-beta-mixture, α = 0.05): 9 of 9 pairs", errOut)
	require.Contains(t, out, "3 discordant: B won 0, A won 3")
	require.Contains(t, out, "e-value 2 (running max 2, threshold 1/α = 20), anytime p = 0.5")
	require.Contains(t, out, "not crossed")

	_, out, _ = run(t, reg, "compare", "-sequential", "-alternative", "less", "-json", before, after)
	var doc struct {
		Sequential struct {
			Alternative string  `json:"alternative"`
			Losses      int     `json:"losses"`
			EValue      float64 `json:"eValue"`
		} `json:"sequential"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Equal(t, "less", doc.Sequential.Alternative)
	require.Equal(t, 3, doc.Sequential.Losses)
	require.Greater(t, doc.Sequential.EValue, 2.0, "one-sided puts all the prior on the worse side")

	code, _, errOut := run(t, reg, "compare", "-alternative", "less", before, after)
	require.Equal(t, cli.ExitUsage, code)
	require.Contains(t, errOut, "-alternative applies to -sequential")
}
