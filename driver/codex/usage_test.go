package codex

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/luxeval/lux"
)

func TestUsageTokens(t *testing.T) {
	tests := []struct {
		name string
		in   cliUsage
		want lux.TokenUsage
	}{
		{"cached tokens are cache reads", cliUsage{InputTokens: 3500, CachedInputTokens: 2000, OutputTokens: 85, ReasoningOutputTokens: 10},
			lux.TokenUsage{Input: 1500, Output: 85, CacheRead: 2000}},
		// Seen with codex 0.169.0: input_tokens_details.cache_write_tokens
		// becomes cache_write_input_tokens, within input_tokens.
		{"cache writes are cache creation", cliUsage{InputTokens: 1000, CachedInputTokens: 200, CacheWriteInputTokens: 100, OutputTokens: 50},
			lux.TokenUsage{Input: 700, Output: 50, CacheRead: 200, CacheCreation: 100}},
		{"never negative", cliUsage{InputTokens: 10, CachedInputTokens: 20}, lux.TokenUsage{CacheRead: 20}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in.tokens()
			assert.Equal(t, tc.want, got)
		})
	}
}
