package compare

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The text lists every case whose verdict flipped, including one whose
// pass rate moved by less than the tolerance.
func TestTextListsFlips(t *testing.T) {
	a := rvSuite(rvPass("f", 1), rvPass("f", 1), rvFail("f", 1), rvPass("g", 1), rvPass("g", 1), rvPass("g", 1))
	b := rvSuite(rvPass("f", 1), rvFail("f", 1), rvFail("f", 1), rvPass("g", 1), rvPass("g", 1), rvPass("g", 1))
	c := rvCompare(t, a, b, Options{PassRateTolerance: 0.5})
	require.Equal(t, CaseUnchanged, caseOf(t, c, "f").Status)
	var buf bytes.Buffer
	require.NoError(t, c.WriteText(&buf))
	assert.Contains(t, buf.String(), "  ↓ f: pass rate 66.7% → 33.3% (3 → 3 runs), passed → failed within the tolerance, Fisher one-sided p = 0.5\n")
	assert.NotContains(t, buf.String(), " g: ")
}
