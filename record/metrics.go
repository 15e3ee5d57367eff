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
// Metrics that are unavailable are absent, never zero. The map is made
// for exactly the metrics it holds: a suite's summary keeps one per run.
func RunMetrics(m *Metadata) map[string]float64 {
	var kv metricList
	kv.add(m)
	out := make(map[string]float64, kv.n)
	for _, e := range kv.e[:kv.n] {
		out[e.name] = e.value
	}
	return out
}

// metricList gathers a run's metrics before their map is made; it has
// room for every one RunMetrics can give.
type metricList struct {
	e [40]struct {
		name  string
		value float64
	}
	n int
}

func (out *metricList) set(name string, v float64) {
	out.e[out.n].name, out.e[out.n].value = name, v
	out.n++
}

func (out *metricList) add(m *Metadata) {
	out.set("durationMs", float64(m.Duration().Milliseconds()))
	out.set("phase.agentMs", float64(m.Phases.Agent))
	out.set("phase.collectMs", float64(m.Phases.Collect))
	out.set("phase.gradingMs", float64(m.Phases.Grading))
	if m.Usage.Agent != nil {
		tokens(out, &agentTokenKeys, *m.Usage.Agent)
	}
	if h := m.Usage.Harness(); !h.IsZero() {
		tokens(out, &harnessTokenKeys, h)
	}
	if h := m.Usage.HarnessCalls(); h.Calls > 0 {
		out.set("harness.calls", float64(h.Calls))
		out.set("harness.costUsd", h.CostUSD)
		out.set("harness.unpricedCalls", float64(h.UnpricedCalls))
	}
	if m.Usage.AgentCostUSD != nil {
		out.set("cost.usd", *m.Usage.AgentCostUSD)
	}
	ic := m.InterruptCounts
	out.set("interrupts", float64(ic.Total()))
	out.set("interrupts.ask", float64(ic.Ask))
	out.set("interrupts.approve", float64(ic.Approve))
	out.set("interrupts.custom", float64(ic.Custom))
	tc := m.ToolCalls
	out.set("toolCalls", float64(tc.Total))
	out.set("toolCalls.reported", float64(tc.Reported))
	out.set("toolCalls.succeeded", float64(tc.Succeeded))
	out.set("toolCalls.failed", float64(tc.Failed))
	out.set("toolCalls.unresolved", float64(tc.Unresolved))
	out.set("toolCalls.unmatchedResults", float64(tc.UnmatchedResults))
	out.set("toolCalls.malformed", float64(tc.Malformed))
	if resolved := tc.Succeeded + tc.Failed; resolved > 0 {
		out.set("toolCalls.failureRate", float64(tc.Failed)/float64(resolved))
	}
	out.set("artifacts.count", float64(m.Artifacts.Count))
	out.set("artifacts.bytes", float64(m.Artifacts.Bytes))
}

// The names of the token metrics, by prefix: constants, so that the maps
// of a suite's runs share them.
var (
	agentTokenKeys   = tokenKeys{"agent.input", "agent.output", "agent.cacheRead", "agent.cacheCreation", "agent.total", "agent.cacheHitRate"}
	harnessTokenKeys = tokenKeys{"harness.input", "harness.output", "harness.cacheRead", "harness.cacheCreation", "harness.total", "harness.cacheHitRate"}
)

// tokenKeys name input, output, cacheRead, cacheCreation, total and
// cacheHitRate.
type tokenKeys [6]string

func tokens(out *metricList, k *tokenKeys, u lux.TokenUsage) {
	out.set(k[0], float64(u.Input))
	out.set(k[1], float64(u.Output))
	out.set(k[2], float64(u.CacheRead))
	out.set(k[3], float64(u.CacheCreation))
	out.set(k[4], float64(u.Total()))
	if denom := u.Input + u.CacheRead + u.CacheCreation; denom > 0 {
		out.set(k[5], float64(u.CacheRead)/float64(denom))
	}
}
