package lux

// TokenUsage counts the tokens of one or more model calls.
type TokenUsage struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheRead     int64 `json:"cacheRead"`
	CacheCreation int64 `json:"cacheCreation"`
}

// Total is the sum of all four counts.
func (u TokenUsage) Total() int64 { return u.Input + u.Output + u.CacheRead + u.CacheCreation }

// IsZero reports whether every count is zero.
func (u TokenUsage) IsZero() bool { return u == TokenUsage{} }

// Add returns the sum of u and v.
func (u TokenUsage) Add(v TokenUsage) TokenUsage {
	return TokenUsage{
		Input:         u.Input + v.Input,
		Output:        u.Output + v.Output,
		CacheRead:     u.CacheRead + v.CacheRead,
		CacheCreation: u.CacheCreation + v.CacheCreation,
	}
}

// Usage keeps apart the tokens and cost of the agent under test from those
// the harness spent: the answerer playing the user and the judges grading.
//
// Agent is nil when the agent reported no usage at all (Cursor's CLI, for
// one), which is not the same as reporting zero tokens; comparisons show it
// as "unavailable". AgentCostUSD is nil likewise when no cost was reported.
type Usage struct {
	Agent        *TokenUsage `json:"agent"`
	AgentCostUSD *float64    `json:"agentCostUsd,omitempty"`
	Answerer     TokenUsage  `json:"answerer"`
	Judge        TokenUsage  `json:"judge"`
}

// AgentAvailable reports whether the agent reported its usage.
func (u Usage) AgentAvailable() bool { return u.Agent != nil }

// Harness is what the harness spent: answerer plus judges.
func (u Usage) Harness() TokenUsage { return u.Answerer.Add(u.Judge) }
