package compare

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/luxeval/lux/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sequentialSuites writes A and B over cases c0…c9, two repetitions each:
// A passes c0…c(aPass−1), B passes c0…c(bPass−1).
func sequentialSuites(t *testing.T, aPass, bPass int) (string, string) {
	t.Helper()
	side := func(n int) []spec {
		var out []spec
		for range 2 {
			for i := range 10 {
				id := fmt.Sprintf("c%d", i)
				if i < n {
					out = append(out, pass(id, ""))
				} else {
					out = append(out, fail(id, ""))
				}
			}
		}
		return out
	}
	a, _ := writeSuite(t, t.TempDir(), side(aPass), suiteOpts{summary: true})
	b, _ := writeSuite(t, t.TempDir(), side(bPass), suiteOpts{summary: true})
	return a, b
}

// B passes 5 more cases than A in each of two repetitions: the pairs, in
// round order, are 3 ties, 5 wins, 2 ties, then the same again. With a uniform prior
// the two-sided e-value after w wins and no loss is 2^w/(w+1) (B(1+w, 1)
// / B(1, 1) / ½^w), which reaches 1/α = 20 at w = 8: 256/9, the 16th pair.
func TestSequentialSuitesCrossesAtTheEighthWin(t *testing.T) {
	a, b := sequentialSuites(t, 3, 8)
	c, err := SequentialSuites(t.Context(), a, b, SequentialOptions{})
	require.NoError(t, err)
	assert.Equal(t, 20, c.Available)
	assert.Equal(t, 16, c.Pairs)
	assert.Equal(t, 8, c.Wins)
	assert.Equal(t, 0, c.Losses)
	assert.True(t, c.Crossed)
	assert.Equal(t, stats.Greater, c.Direction)
	assert.InDelta(t, 256.0/9, c.EValue, 1e-9)
	assert.InDelta(t, 9.0/256, c.PValue, 1e-12)
	// The confidence sequence at 8 wins and no loss: {p : p⁸ > (1/9)/20}.
	assert.InDelta(t, math.Pow(1.0/180, 1.0/8), c.WinRate.Lower, 1e-9)
	assert.Equal(t, 1.0, c.WinRate.Upper)
	var out strings.Builder
	require.NoError(t, c.WriteText(&out))
	assert.Contains(t, out.String(), "16 of 20 pairs of case and repetition used")
	assert.Contains(t, out.String(), "e-value 28.44 (running max 28.44, threshold 1/α = 20), anytime p = 0.03516")
	assert.Contains(t, out.String(), "crossed after 16 of 20 pairs (saved 4): B is better than A")
}

// Equal suites never cross: every pair is concordant.
func TestSequentialSuitesWithoutDiscordantPairsDecideNothing(t *testing.T) {
	a, b := sequentialSuites(t, 4, 4)
	c, err := SequentialSuites(t.Context(), a, b, SequentialOptions{Level: 0.9})
	require.NoError(t, err)
	assert.False(t, c.Crossed)
	assert.Equal(t, 20, c.Pairs)
	assert.Equal(t, 1.0, c.EValue)
	assert.Equal(t, 1.0, c.PValue)
	var out strings.Builder
	require.NoError(t, c.WriteText(&out))
	assert.Contains(t, out.String(), "not crossed")
}
