package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion/rubric"
	"github.com/luxeval/lux/harness"
	"github.com/luxeval/lux/labels"
	"github.com/luxeval/lux/orchestrator"
)

// criteriaJudge passes a run unless its criterion says STRICT and the
// run's result.txt does not say GOOD.
type criteriaJudge struct{}

func (criteriaJudge) Name() string { return "test:criteria-judge" }
func (criteriaJudge) Complete(_ context.Context, req harness.Request) (harness.Response, error) {
	text := `{"score": 0.9, "comment": "ok"}`
	if strings.Contains(req.Prompt, "STRICT") && !strings.Contains(req.Prompt, "--- result.txt ---\nGOOD") {
		text = `{"score": 0.1, "comment": "not good"}`
	}
	return harness.Response{Text: text, Usage: lux.TokenUsage{Input: 50, Output: 5}, Model: "criteria"}, nil
}

// lux experiment runs a grader campaign (labelled runs regraded with
// candidate rubrics), lux report shows the agreement and lux apply writes
// the winning rubric.
func TestGraderExperimentOnTheCommandLine(t *testing.T) {
	reg := registry(t)
	require.NoError(t, reg.RegisterAssertion(rubric.PluginWith(rubric.Options{Factory: func(harness.Config) (harness.Model, error) { return criteriaJudge{}, nil }})))
	dir := t.TempDir()
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: filepath.Join(dir, "frozen"),
		DefaultDriver: &lux.PluginRef{Name: "subprocess", Config: map[string]any{"command": agentBin}}})
	dataset := filepath.Join(dir, "labels.json")
	for i, result := range []string{"GOOD", "BAD", "GOOD", "BAD"} {
		c := &lux.Case{ID: fmt.Sprintf("c%d", i+1), Prompt: fmt.Sprintf("write result.txt containing %q", result),
			Assertions: []lux.AssertionSpec{{Type: rubric.Type, ID: "quality", Config: map[string]any{"criteria": "LENIENT"}}}}
		res, err := o.Run(context.Background(), c)
		require.NoError(t, err)
		l, err := labels.ForRun(dataset, res.Dir, "ada")
		require.NoError(t, err)
		pass := result == "GOOD"
		l.Expected.Passed, l.Tags, l.LabeledAt = &pass, []string{"validation"}, time.Now().UTC()
		_, err = labels.Upsert(dataset, l)
		require.NoError(t, err)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "rubrics"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rubrics", "quality.md"), []byte("LENIENT: any result.\n"), 0o644))
	campaign := filepath.Join(dir, "judge.experiment.json")
	require.NoError(t, os.WriteFile(campaign, []byte(`{
  "id": "judge",
  "subject": {"root": "rubrics", "mutable": ["quality.md"]},
  "grader": {"labels": "labels.json", "rubrics": [{"assertion": "quality", "file": "quality.md"}]},
  "splits": {"validation": {"tags": ["validation"]}},
  "variants": [{"id": "strict", "files": {"quality.md": "STRICT: only a good result.\n"}}],
  "objectives": {"constraints": [{"metric": "judge.falsePositiveRate", "max": 0}]}
}`), 0o644))

	code, out, errOut := run(t, reg, "experiment", "-plan", campaign)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "projected: 8 runs")

	runs := filepath.Join(dir, "runs")
	code, out, errOut = run(t, reg, "experiment", "-runs-root", runs, campaign)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.True(t, strings.HasPrefix(out, "promote strict"), out)
	assert.Contains(t, out, "agreement with the labels:\n  baseline (validation): 4 gradings\n    case: agreement 0.500 (TP 2, FP 2, FN 0, TN 0, abstained 0), false positives 1.000")
	ledger := regexp.MustCompile(`ledger: (\S+)`).FindStringSubmatch(out)[1]

	code, out, _ = run(t, reg, "report", ledger)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "## Agreement with the labels")
	assert.Contains(t, out, "baseline (validation): 4 gradings")

	page := filepath.Join(dir, "experiment.html")
	code, _, errOut = run(t, reg, "report", "-html", page, ledger)
	require.Equal(t, 0, code, errOut)
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(b), "<h2>Agreement with the labels</h2>")
	assert.Contains(t, string(b), "strict (validation): 4 gradings")

	code, out, errOut = run(t, reg, "apply", ledger)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "applied candidate strict")
	b, err = os.ReadFile(filepath.Join(dir, "rubrics", "quality.md"))
	require.NoError(t, err)
	assert.Equal(t, "STRICT: only a good result.\n", string(b))
}
