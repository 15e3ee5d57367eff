package experiment

import (
	"bytes"
	"fmt"
	"path/filepath"
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
	// Neither added constraint can pass on 6 units: hoeffding needs
	// ln 40/(2·0.1²) = 184.4, t's exact fallback ln(0.025)/ln(0.6) = 7.2.
	assert.False(t, p.Decidable)
	require.Len(t, p.Undecidable, 2)
	assert.Equal(t, [2]int{185, 8}, [2]int{p.Undecidable[0].Need, p.Undecidable[1].Need})
	_, err = List(f.dir)
	require.NoError(t, err)
	ledgers, _ := List(f.dir + "/.lux-runs")
	assert.Empty(t, ledgers, "a plan starts nothing")
}

// Three cases in each split: no result can show a pass-rate effect ≥ 0 at
// 95 % on three units, so the plan refuses the campaign, naming the
// constraint, the split and the units it has and needs; Run refuses it
// too unless forced, and a forced run ends inconclusive, not rejected.
func TestACampaignThatCannotDecideIsRefused(t *testing.T) {
	f := newFixture(t, "write a.txt alpha\n")
	for i := range 3 {
		f.addCase(t, "validation", fmt.Sprintf("val-%d", i), "", "a.txt", "beta")
		f.addCase(t, "test", fmt.Sprintf("test-%d", i), "", "a.txt", "beta")
	}
	c := f.campaign(t)
	c.Splits.Test = &Selector{Patterns: []string{"cases/test"}}
	c.Variants = []Variant{{ID: "with-tests", Files: map[string]string{"AGENTS.md": "write a.txt beta\n"}}}
	c.Objectives.Constraints = []Constraint{
		{Metric: MetricPassRate, RelativeTo: BaselineID, Min: zero(), Confidence: &Confidence{}},
		{Metric: MetricPassRate, RelativeTo: BaselineID, Min: zero(), Confidence: &Confidence{}, Split: SplitTest},
	}
	p, err := Plan(ctx(t), testRegistry(t), c)
	require.NoError(t, err)
	assert.False(t, p.Decidable)
	require.Len(t, p.Undecidable, 2)
	assert.Equal(t, Undecidable{Constraint: 1, Metric: MetricPassRate, Split: SplitTest, Units: 3, Need: 6,
		Text: "objectives.constraints[1] (pass rate effect ≥ 0, t 95%) cannot be decided on split test: it has 3 independent units and needs at least 6; with fewer, not even every case going from fail to pass could satisfy it (add cases to the split, lower the bound or the level, or force the run)"},
		p.Undecidable[1])
	var text bytes.Buffer
	p.WriteText(&text)
	assert.Contains(t, text.String(), "cannot decide: objectives.constraints[0] (pass rate effect ≥ 0, t 95%) cannot be decided on split validation: it has 3 independent units and needs at least 6")

	runs := filepath.Join(f.dir, ".lux-runs")
	_, err = Run(ctx(t), testRegistry(t), c, Options{RunsRoot: runs})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot be decided on split test: it has 3 independent units and needs at least 6")
	ledgers, _ := List(runs)
	assert.Empty(t, ledgers, "nothing ran")

	res, err := Run(ctx(t), testRegistry(t), c, Options{RunsRoot: runs, Force: true})
	require.NoError(t, err)
	assert.Equal(t, Inconclusive, res.Decision.Outcome)
	assert.Equal(t, StatusFailed, res.Manifest.Status)
	assert.Equal(t, "inconclusive: too few units to decide (with-tests: 3 of the 6 units needed on validation)", res.Sentence())
	rep, err := BuildReport(ctx(t), res.Dir)
	require.NoError(t, err)
	assert.Equal(t, Inconclusive, rep.Outcome)
	var md bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&md))
	assert.Contains(t, md.String(), "inconclusive with-tests: too few units")
	assert.NotContains(t, md.String(), "reject")
}
