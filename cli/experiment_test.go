package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// experimentProject copies examples/experiment/project and points its
// profile at the echoagent built for these tests.
func experimentProject(t *testing.T) (dir, campaign string) {
	t.Helper()
	dir = t.TempDir()
	src := filepath.Join("..", "examples", "experiment", "project")
	require.NoError(t, os.CopyFS(dir, os.DirFS(src)))
	campaign = filepath.Join(dir, "house-style.experiment.json")
	b, err := os.ReadFile(campaign)
	require.NoError(t, err)
	b = []byte(strings.Replace(string(b), `"command": "echoagent"`, `"command": "`+agentBin+`"`, 1))
	require.NoError(t, os.WriteFile(campaign, b, 0o644))
	return dir, campaign
}

func TestExperimentReportApply(t *testing.T) {
	reg := registry(t)
	dir, campaign := experimentProject(t)
	runs := filepath.Join(dir, "runs")

	code, out, errOut := run(t, reg, "experiment", "-plan", campaign)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "split validation: 8 cases, 8 independent units")
	assert.Contains(t, out, "projected: 24 runs")
	assert.Contains(t, out, "fits the budget")

	code, out, errOut = run(t, reg, "experiment", "-runs-root", runs, "-j", "2", campaign)
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `^promote variant-x: pass rate effect \(echoagent, validation\) \+0\.75 \[\+0\.\d+, \+1\.?\d*\], t 95%, 8 cases\n`, out)
	assert.Contains(t, out, "reject variant-y:")
	assert.Contains(t, errOut, "unit 24 of 24")
	ledger := regexp.MustCompile(`ledger: (\S+)`).FindStringSubmatch(out)[1]

	code, out, _ = run(t, reg, "view", "-runs-root", runs)
	require.Equal(t, 0, code)
	assert.Regexp(t, `house-style\s+passed\s+promote variant-x\s+24 of 24`, out)

	code, out, _ = run(t, reg, "report", ledger)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "# Experiment house-style")
	assert.Contains(t, out, "## Gates")
	assert.Contains(t, out, "lux apply '"+ledger+"'")

	code, out, _ = run(t, reg, "report", "-json", ledger)
	require.Equal(t, 0, code)
	var rep struct {
		Schema, Outcome, Champion string
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, "lux.experiment-report/v1", rep.Schema)
	assert.Equal(t, "promote", rep.Outcome)
	assert.Equal(t, "variant-x", rep.Champion)

	md := filepath.Join(dir, "report.md")
	code, _, errOut = run(t, reg, "report", "-out", md, ledger)
	require.Equal(t, 0, code, errOut)
	code, _, errOut = run(t, reg, "report", "-out", md, ledger)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "exists; add -force to replace it")
	code, _, errOut = run(t, reg, "report", "-out", md, "-force", ledger)
	assert.Equal(t, 0, code, errOut)
	code, _, errOut = run(t, reg, "report", "-out", filepath.Join(ledger, "r.md"), ledger)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "inside the experiment's ledger")

	code, _, errOut = run(t, reg, "experiment", "-resume", ledger)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "a passed ledger is immutable")

	code, out, errOut = run(t, reg, "apply", ledger)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "applied candidate variant-x to "+filepath.Join(dir, "subject"))
	b, _ := os.ReadFile(filepath.Join(dir, "subject", "AGENTS.md"))
	assert.Contains(t, string(b), "tabs")
	code, _, errOut = run(t, reg, "apply", ledger)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no longer matches the tree the experiment measured (changed: AGENTS.md)")
}

// A campaign whose split has too few cases for its constraint to pass,
// whatever the results: -plan refuses it (exit 1) naming the constraint,
// the split and the units it has and needs; so does a run, unless forced,
// and a forced run is inconclusive, never a reject.
func TestExperimentThatCannotDecideIsRefused(t *testing.T) {
	reg := registry(t)
	dir, campaign := experimentProject(t)
	cases, err := filepath.Glob(filepath.Join(dir, "cases", "validation", "*.case.json"))
	require.NoError(t, err)
	for _, c := range cases[3:] {
		require.NoError(t, os.Remove(c))
	}
	runs := filepath.Join(dir, "runs")

	code, out, errOut := run(t, reg, "experiment", "-plan", campaign)
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, out, "cannot decide: objectives.constraints[0] (pass rate effect ≥ 0, t 95%) cannot be decided on split validation: it has 3 independent units and needs at least 6")
	code, _, errOut = run(t, reg, "experiment", "-plan", "-force", campaign)
	assert.Equal(t, 0, code, errOut)

	code, _, errOut = run(t, reg, "experiment", "-runs-root", runs, campaign)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "it has 3 independent units and needs at least 6")
	assert.Contains(t, errOut, "-force")

	code, out, errOut = run(t, reg, "experiment", "-q", "-force", "-runs-root", runs, campaign)
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, out, "inconclusive: too few units to decide (")
	assert.NotContains(t, out, "reject")
	ledger := regexp.MustCompile(`ledger: (\S+)`).FindStringSubmatch(out)[1]
	code, out, _ = run(t, reg, "report", "-json", ledger)
	require.Equal(t, 0, code)
	var rep struct{ Outcome string }
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, "inconclusive", rep.Outcome)
}

// Every command of a report's Reproduce section works as printed.
func TestExperimentReproduceStepsRun(t *testing.T) {
	reg := registry(t)
	dir, campaign := experimentProject(t)
	runs := filepath.Join(dir, "runs")
	code, out, errOut := run(t, reg, "experiment", "-q", "-runs-root", runs, campaign)
	require.Equal(t, 0, code, errOut)
	ledger := regexp.MustCompile(`ledger: (\S+)`).FindStringSubmatch(out)[1]
	code, out, _ = run(t, reg, "report", "-json", ledger)
	require.Equal(t, 0, code)
	var rep struct{ Reproduce []string }
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.NotEmpty(t, rep.Reproduce)
	for _, line := range rep.Reproduce {
		args := shellWords(t, line)
		require.Equal(t, "lux", args[0], line)
		code, _, errOut := run(t, reg, args[1:]...)
		assert.Equal(t, 0, code, "%s: %s", line, errOut)
	}
}

// shellWords splits a command line of words and single-quoted strings.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var out []string
	for _, m := range regexp.MustCompile(`'([^']*)'|(\S+)`).FindAllStringSubmatch(line, -1) {
		out = append(out, m[1]+m[2])
	}
	return out
}
