package experiment

import (
	"slices"
	"strings"

	"github.com/luxeval/lux/compare"
)

// The metrics of a campaign besides those of record.RunMetrics (durationMs,
// agent.total, cost.usd, interrupts.ask, toolCalls, ...).
const (
	// MetricPassRate is the share of a case's runs that ended done and passed.
	MetricPassRate = "quality.passRate"
	// MetricScore is a case's mean case score.
	MetricScore = "quality.score"
	// MetricSubjectBytes is the candidate's bytes over its mutable files.
	MetricSubjectBytes = "subject.bytes"
)

// EffectMetrics are the metrics every candidate's paired effect is
// reported on, besides every constraint metric.
var EffectMetrics = []string{MetricPassRate, "agent.total", "interrupts.ask", "toolCalls", "cost.usd", "durationMs"}

// runMetricPrefixes and runMetricNames are the names record.RunMetrics produces.
var runMetricNames = []string{
	"durationMs", "phase.agentMs", "phase.collectMs", "phase.gradingMs", "cost.usd",
	"interrupts", "interrupts.ask", "interrupts.approve", "interrupts.custom",
	"toolCalls", "toolCalls.reported", "toolCalls.succeeded", "toolCalls.failed", "toolCalls.unresolved",
	"toolCalls.unmatchedResults", "toolCalls.malformed", "toolCalls.failureRate",
	"artifacts.count", "artifacts.bytes",
}

var tokenMetrics = []string{"input", "output", "cacheRead", "cacheCreation", "total", "cacheHitRate"}

// knownMetric reports whether name is a metric constraints may use.
func knownMetric(name string) bool {
	switch name {
	case MetricPassRate, MetricScore, MetricSubjectBytes:
		return true
	}
	if slices.Contains(runMetricNames, name) {
		return true
	}
	for _, p := range []string{"agent.", "harness."} {
		if rest, ok := strings.CutPrefix(name, p); ok && slices.Contains(tokenMetrics, rest) {
			return true
		}
	}
	return false
}

// unitIntervalMetric reports whether every value of name lies in [0, 1].
func unitIntervalMetric(name string) bool {
	return name == MetricPassRate || name == MetricScore || name == MetricScoreError || compare.MetricUnit(compareName(name)) == "fraction"
}

// compareName is the name package compare gives the metric.
func compareName(name string) string {
	switch name {
	case MetricPassRate:
		return compare.MetricPassRate
	case MetricScore:
		return compare.MetricScore
	}
	return name
}

// metricLabel is the name people read.
func metricLabel(name string) string {
	switch name {
	case MetricPassRate:
		return "pass rate"
	case MetricScore:
		return "score"
	case "agent.total":
		return "agent tokens"
	case "interrupts.ask":
		return "questions"
	case "toolCalls":
		return "tool calls"
	case "cost.usd":
		return "cost"
	case "durationMs":
		return "duration"
	case MetricSubjectBytes:
		return "subject bytes"
	case MetricAgreement:
		return "verdict agreement"
	case MetricAssertionAgreement:
		return "assertion agreement"
	case MetricFalsePositive:
		return "false positives"
	case MetricFalseNegative:
		return "false negatives"
	case MetricAbstention:
		return "abstentions"
	case MetricScoreError:
		return "score error"
	case MetricJudgeCalls:
		return "judge calls"
	case MetricJudgeTokens:
		return "judge tokens"
	case MetricJudgeCost:
		return "judge cost"
	}
	return name
}
