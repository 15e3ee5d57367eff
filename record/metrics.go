package record

import "github.com/luxeval/lux"

// RunMetrics returns the numeric measurements of one run, by name:
//
//	durationMs                         start to end of the run
//	phase.agentMs, .collectMs, .gradingMs
//	agent.input, .output, .cacheRead, .cacheCreation, .total, .cacheHitRate
//	                                   only when the agent reported usage
//	harness.input, ... .total          answerer plus judges, only when non-zero
//	harness.calls, .costUsd, .unpricedCalls
//	                                   their model calls, only when there were any
//	cost.usd                           only when the agent reported a cost
//	interrupts.ask, .approve, .custom, interrupts (total)
//	toolCalls (distinct calls), toolCalls.reported, .succeeded, .failed,
//	.unresolved, .unmatchedResults, .malformed, .failureRate (when any resolved)
//	artifacts.count, artifacts.bytes
//
// Metrics that are unavailable are absent, never zero.
func RunMetrics(m *Metadata) map[string]float64 {
	out := make(map[string]float64, 32)
	out["durationMs"] = float64(m.Duration().Milliseconds())
	out["phase.agentMs"] = float64(m.Phases.Agent)
	out["phase.collectMs"] = float64(m.Phases.Collect)
	out["phase.gradingMs"] = float64(m.Phases.Grading)
	if m.Usage.Agent != nil {
		tokens(out, "agent.", *m.Usage.Agent)
	}
	if h := m.Usage.Harness(); !h.IsZero() {
		tokens(out, "harness.", h)
	}
	if h := m.Usage.HarnessCalls(); h.Calls > 0 {
		out["harness.calls"] = float64(h.Calls)
		out["harness.costUsd"] = h.CostUSD
		out["harness.unpricedCalls"] = float64(h.UnpricedCalls)
	}
	if m.Usage.AgentCostUSD != nil {
		out["cost.usd"] = *m.Usage.AgentCostUSD
	}
	ic := m.InterruptCounts
	out["interrupts"] = float64(ic.Total())
	out["interrupts.ask"] = float64(ic.Ask)
	out["interrupts.approve"] = float64(ic.Approve)
	out["interrupts.custom"] = float64(ic.Custom)
	tc := m.ToolCalls
	out["toolCalls"] = float64(tc.Total)
	out["toolCalls.reported"] = float64(tc.Reported)
	out["toolCalls.succeeded"] = float64(tc.Succeeded)
	out["toolCalls.failed"] = float64(tc.Failed)
	out["toolCalls.unresolved"] = float64(tc.Unresolved)
	out["toolCalls.unmatchedResults"] = float64(tc.UnmatchedResults)
	out["toolCalls.malformed"] = float64(tc.Malformed)
	if resolved := tc.Succeeded + tc.Failed; resolved > 0 {
		out["toolCalls.failureRate"] = float64(tc.Failed) / float64(resolved)
	}
	out["artifacts.count"] = float64(m.Artifacts.Count)
	out["artifacts.bytes"] = float64(m.Artifacts.Bytes)
	return out
}

func tokens(out map[string]float64, prefix string, u lux.TokenUsage) {
	out[prefix+"input"] = float64(u.Input)
	out[prefix+"output"] = float64(u.Output)
	out[prefix+"cacheRead"] = float64(u.CacheRead)
	out[prefix+"cacheCreation"] = float64(u.CacheCreation)
	out[prefix+"total"] = float64(u.Total())
	if denom := u.Input + u.CacheRead + u.CacheCreation; denom > 0 {
		out[prefix+"cacheHitRate"] = float64(u.CacheRead) / float64(denom)
	}
}
