package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/experiment"
	"github.com/luxeval/lux/internal/clitest"
)

// TestExample runs the example: the lenient rubric is rejected for its
// false positives, the strict one promoted and applied.
func TestExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example agent and runs the real CLI")
	}
	clitest.Find(t, "claude")
	dir := t.TempDir()
	var out bytes.Buffer
	res, err := example(context.Background(), &out, dir)
	require.NoError(t, err, out.String())
	assert.Equal(t, experiment.Promote, res.Decision.Outcome, out.String())
	assert.Equal(t, "strict", res.Decision.Champion)
	assert.Contains(t, out.String(), "baseline: false positives (judge, validation) +1 needs ≤ 0: failed")
	assert.Contains(t, out.String(), "case: agreement 1.000 (TP 3, FP 0, FN 0, TN 3")
	got, err := os.ReadFile(filepath.Join(dir, "rubrics", "summary.md"))
	require.NoError(t, err)
	assert.Equal(t, strictRubric, string(got))
}
