package cli

import (
	"strings"
	"testing"

	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/experiment"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An experiment whose variant changes no case's tokens draws no row for
// them: the metric is named in one line, and a caveat shared by metrics
// is said once, naming them.
func TestExperimentPageLeavesUnchangedMetricsOutOfThePlot(t *testing.T) {
	few := compare.Warning{Code: compare.WarnFewClusters, Message: "few clusters: 8 clusters (fewer than 20)"}
	iv := func(lo, hi float64) *compare.Interval {
		return &compare.Interval{Lower: lo, Upper: hi, Method: "t", Level: 0.95, Units: 8, Clustered: true}
	}
	effect := func(metric string, delta float64, interval *compare.Interval, noChange bool, ws ...compare.Warning) experiment.Effect {
		return experiment.Effect{Candidate: "v", Profile: "default", Split: experiment.SplitValidation, Metric: metric,
			Delta: delta, Cases: 16, Interval: interval, NoChange: noChange, Warnings: ws}
	}
	r := &experiment.Report{ExperimentID: "quiet", Effects: []experiment.Effect{
		effect(experiment.MetricPassRate, 0.625, iv(0.25, 0.99), false, few),
		effect("agent.total", 0, iv(0, 0), true),
		effect("toolCalls", 0, iv(0, 0), false, few),
	}}
	p := experimentPage(r)
	require.Len(t, p.Forests, 1)
	f := p.Forests[0]
	var rows []string
	for _, row := range f.Rows {
		rows = append(rows, row.Label)
	}
	tokens := compare.MetricLabel("agent.total")
	assert.Equal(t, []string{compare.MetricLabel(compare.MetricPassRate), compare.MetricLabel("toolCalls")}, rows)
	assert.Contains(t, f.NoChange, tokens)
	require.Len(t, p.EffectCaveats, 1, "%q", p.EffectCaveats)
	assert.Contains(t, p.EffectCaveats[0], compare.MetricLabel(compare.MetricPassRate)+", "+compare.MetricLabel("toolCalls")+": few clusters")
	for _, row := range f.Rows {
		assert.True(t, strings.HasPrefix(row.Detail, "t, 95%"), "the interval names its method: %q", row.Detail)
	}
}
