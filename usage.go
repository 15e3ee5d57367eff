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
	// AgentMethod says how Agent was measured when the agent reported
	// none: "sandbox-proxy: ..." when the sandbox's forwarded model
	// endpoints counted the usage objects of the responses they carried
	// (sandbox.MeterMethod). Empty when the agent reported it.
	AgentMethod string     `json:"agentMethod,omitempty"`
	Answerer    ModelUsage `json:"answerer"`
	Judge       ModelUsage `json:"judge"`
}

// AgentAvailable reports whether the agent reported its usage.
func (u Usage) AgentAvailable() bool { return u.Agent != nil }

// Harness is the tokens the harness spent: answerer plus judges.
func (u Usage) Harness() TokenUsage { return u.Answerer.TokenUsage.Add(u.Judge.TokenUsage) }

// HarnessCalls is everything the harness spent: answerer plus judges.
func (u Usage) HarnessCalls() ModelUsage { return u.Answerer.Add(u.Judge) }

// ModelUsage is what a harness plugin (an answerer playing the user, a
// judge grading) spent on model calls: the tokens, and the calls with their
// cost. A call whose provider reported no cost is counted in UnpricedCalls
// and adds nothing to CostUSD, so CostUSD is a lower bound whenever
// UnpricedCalls is not zero. A call that failed counts as an unpriced call.
//
// In JSON the token counts are inline with the call counts.
type ModelUsage struct {
	TokenUsage
	Calls         int     `json:"calls,omitempty"`
	CostUSD       float64 `json:"costUsd,omitempty"`
	UnpricedCalls int     `json:"unpricedCalls,omitempty"`
}

// Add returns the sum of u and v.
func (u ModelUsage) Add(v ModelUsage) ModelUsage {
	return ModelUsage{
		TokenUsage:    u.TokenUsage.Add(v.TokenUsage),
		Calls:         u.Calls + v.Calls,
		CostUSD:       u.CostUSD + v.CostUSD,
		UnpricedCalls: u.UnpricedCalls + v.UnpricedCalls,
	}
}

// Call adds one model call to u: its tokens and its cost, or when cost is
// nil, one unpriced call.
func (u *ModelUsage) Call(tokens TokenUsage, cost *float64) {
	u.TokenUsage = u.TokenUsage.Add(tokens)
	u.Calls++
	if cost != nil {
		u.CostUSD += *cost
	} else {
		u.UnpricedCalls++
	}
}
