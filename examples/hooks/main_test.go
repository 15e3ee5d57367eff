package main

import (
	"bytes"
	"context"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/record"
)

// TestExample runs the suite: the service starts before the first run,
// each run's agent reaches it, and it stops after the last.
func TestExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example agent")
	}
	var out bytes.Buffer
	res, err := example(context.Background(), &out, t.TempDir())
	require.NoError(t, err, out.String())
	for _, it := range res.Manifest.Items {
		assert.Equal(t, record.VerdictPass, it.Verdict(), out.String())
	}
	assert.Regexp(t, regexp.MustCompile(`(?s)^suite setup: the service listens on 127\.0\.0\.1:\d+\n.*suite cleanup: the service served 2 requests and stops\n`), out.String())
}
