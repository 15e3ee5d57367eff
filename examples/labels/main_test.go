package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/labels"
)

// TestExample runs the example: the lenient assertion passes every
// placeholder the reviewer failed; the strict one agrees with the reviewer.
func TestExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example agent")
	}
	var out bytes.Buffer
	rep, err := example(context.Background(), &out, t.TempDir())
	require.NoError(t, err, out.String())
	byID := map[string]labels.Table{}
	for _, a := range rep.Assertions {
		byID[a.Subject] = a
	}
	assert.Equal(t, labels.Confusion{TP: 3, FP: 3}, byID["exists"].Confusion, out.String())
	assert.Equal(t, labels.Confusion{TP: 3, TN: 3}, byID["has-summary"].Confusion, out.String())
	assert.Equal(t, labels.Confusion{TP: 3, TN: 3}, rep.Case.Confusion, "the case needs both, so it follows has-summary")
	require.NotNil(t, byID["has-summary"].Kappa.Estimate)
	assert.Equal(t, 1.0, *byID["has-summary"].Kappa.Estimate)
	require.NotNil(t, byID["exists"].Kappa.Estimate)
	assert.Equal(t, 0.0, *byID["exists"].Kappa.Estimate, "exists says pass to everything: no better than chance")
	assert.Contains(t, out.String(), "grade -labels")
}
