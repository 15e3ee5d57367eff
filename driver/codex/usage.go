package codex

import "github.com/luxeval/lux"

// cliUsage is token usage as the CLI reports it, in either mode: exec's
// turn.completed usage (snake_case) or app-server's token usage breakdown
// (camelCase).
type cliUsage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
}

// appUsage is app-server's TokenUsageBreakdown.
type appUsage struct {
	InputTokens           int64 `json:"inputTokens"`
	CachedInputTokens     int64 `json:"cachedInputTokens"`
	CacheWriteInputTokens int64 `json:"cacheWriteInputTokens"`
	OutputTokens          int64 `json:"outputTokens"`
	ReasoningOutputTokens int64 `json:"reasoningOutputTokens"`
	TotalTokens           int64 `json:"totalTokens"`
}

func (u appUsage) cli() cliUsage {
	return cliUsage{
		InputTokens:           u.InputTokens,
		CachedInputTokens:     u.CachedInputTokens,
		CacheWriteInputTokens: u.CacheWriteInputTokens,
		OutputTokens:          u.OutputTokens,
		ReasoningOutputTokens: u.ReasoningOutputTokens,
	}
}

// tokens converts the CLI's usage to lux's. The CLI's input count is the
// API's input_tokens, which includes the tokens read from the cache
// (input_tokens_details.cached_tokens) and those written to it
// (input_tokens_details.cache_write_tokens), so Input is what remains once
// both are taken out: the four counts then add up to the CLI's total.
// Output includes the reasoning tokens.
func (u cliUsage) tokens() lux.TokenUsage {
	return lux.TokenUsage{
		Input:         max(0, u.InputTokens-u.CachedInputTokens-u.CacheWriteInputTokens),
		Output:        u.OutputTokens,
		CacheRead:     u.CachedInputTokens,
		CacheCreation: u.CacheWriteInputTokens,
	}
}
