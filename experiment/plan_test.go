package experiment

import (
	"strings"
	"testing"

	"github.com/luxeval/lux/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlanProjectsAndWarnsWithoutRunningAnything(t *testing.T) {
	f, c := promoteFixture(t)
	c.Repetitions.Promotion = 2
	c.Objectives.Constraints = append(c.Objectives.Constraints,
		Constraint{Metric: MetricPassRate, Min: num(0.9), Confidence: &Confidence{Method: stats.Hoeffding}},
		Constraint{Metric: MetricPassRate, RelativeTo: BaselineID, Min: num(0.2), Confidence: &Confidence{}})
	c.Budget.MaxRuns = 30
	p, err := Plan(ctx(t), testRegistry(t), c)
	require.NoError(t, err)
	assert.Equal(t, []string{BaselineID, "variant-x", "variant-y"}, p.Candidates)
	require.Len(t, p.Splits, 1)
	assert.Len(t, p.Splits[0].Cases, 6)
	assert.Equal(t, 36, p.Projected.Runs) // 3 candidates × 6 cases × 2
	assert.False(t, p.FitsBudget)
	w := strings.Join(p.Warnings, "\n")
	assert.Contains(t, w, "the projected 36 runs and 0 judge calls exceed the budget")
	assert.Contains(t, w, "cannot attain the lower bound 0.9 even with every case passing (best 0.446 with 6 units)")
	assert.Contains(t, w, "detecting an effect of 0.2 with 80% power needs about 197 independent units")
	assert.Contains(t, w, "only 6 independent units")
	_, err = List(f.dir)
	require.NoError(t, err)
	ledgers, _ := List(f.dir + "/.lux-runs")
	assert.Empty(t, ledgers, "a plan starts nothing")
}
