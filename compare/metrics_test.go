package compare

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Only metrics lux records have a direction: a misspelt gate metric is an
// invalid option, not a gate that can never fail because no run has it.
func TestGateMetricSpelling(t *testing.T) {
	for name, want := range map[string]string{
		MetricPassRate: "higher", MetricScore: "higher", "agent.cacheHitRate": "higher", "harness.cacheHitRate": "higher",
		"durationMs": "lower", "phase.agentMs": "lower", "phase.collectMs": "lower", "phase.gradingMs": "lower",
		"agent.input": "lower", "agent.output": "lower", "agent.cacheRead": "lower", "agent.cacheCreation": "lower", "agent.total": "lower",
		"harness.total": "lower", "cost.usd": "lower", "toolCalls.failed": "lower", "toolCalls.failureRate": "lower",
		"toolCalls": "", "interrupts": "", "artifacts.bytes": "",
		"agent.totl": "", "harness.tokens": "", "phase.agent": "", "agent.": "", "other.cacheHitRate": "",
	} {
		assert.Equal(t, want, MetricBetter(name), name)
	}
	a, b := rvSuite(rvPass("x", 1), rvPass("y", 2)), rvSuite(rvPass("x", 1), rvPass("y", 2))
	_, err := SuiteRecords(ctx, a, b, Options{GateMetrics: []string{MetricPassRate, "agent.totl"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `GateMetrics[1]: metric "agent.totl" has no direction`)
}
