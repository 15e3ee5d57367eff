package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSequentialExample runs the sequential campaign against echoagent:
// variant-x wins every discordant pair and crosses the threshold in round
// 2, variant-y loses every one and is given up in round 3, so the campaign
// stops after 3 of its 10 rounds and says what it saved.
func TestSequentialExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example agent")
	}
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, t.TempDir(), true, true), out.String())
	text := out.String()
	assert.Contains(t, text, "promote variant-x: pass rate effect ≥ 0 (echoagent, validation), sign-test e=56.78 ≥ 1/α=40")
	assert.Contains(t, text, "decided after 64 of at most 240 runs (saved 176), 3 rounds")
	assert.Contains(t, text, "by round (threshold 1/α = 40): 1: e=18.1 win rate [0.391, 1]; 2: e=56.8 win rate [0.479, 1]")
	assert.Contains(t, text, "(futile: its futility test rejects a win rate of 0.6 or more among discordant pairs): failed")
}
