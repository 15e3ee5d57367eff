package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOptimizeExample runs the search against echoagent: the overfit (a
// perfect train score) is rejected on held-out cases, the fix promoted.
func TestOptimizeExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example agent")
	}
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, t.TempDir(), true), out.String())
	text := out.String()
	assert.Contains(t, text, "baseline → c1  train pass rate 0.000 → 1.000 (+1.000)")
	assert.Contains(t, text, "held-out decision: promote c2")
	assert.Contains(t, text, "reject c1:")
	assert.Contains(t, text, "proposals: 3 calls, 2520 tokens")
}
