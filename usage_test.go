package lux_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
)

func TestModelUsageCountsCallsAndUnpricedOnes(t *testing.T) {
	var u lux.ModelUsage
	cost := 0.25
	u.Call(lux.TokenUsage{Input: 10, Output: 2}, &cost)
	u.Call(lux.TokenUsage{Input: 5}, nil)
	assert.Equal(t, lux.ModelUsage{TokenUsage: lux.TokenUsage{Input: 15, Output: 2}, Calls: 2, CostUSD: 0.25, UnpricedCalls: 1}, u)

	all := lux.Usage{Answerer: u, Judge: lux.ModelUsage{TokenUsage: lux.TokenUsage{Output: 7}, Calls: 1, CostUSD: 0.5}}
	assert.Equal(t, int64(24), all.Harness().Total())
	assert.Equal(t, lux.ModelUsage{TokenUsage: lux.TokenUsage{Input: 15, Output: 9}, Calls: 3, CostUSD: 0.75, UnpricedCalls: 1}, all.HarnessCalls())

	b, err := json.Marshal(u)
	require.NoError(t, err)
	assert.JSONEq(t, `{"input":15,"output":2,"cacheRead":0,"cacheCreation":0,"calls":2,"costUsd":0.25,"unpricedCalls":1}`, string(b),
		"token counts stay inline, so older records read the same")
}
