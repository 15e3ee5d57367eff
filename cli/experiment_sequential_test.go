package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The sequential campaign of the example, through the command line: the
// plan shows the worst case and the expected spend, the run prints each
// round and the e-process of each decision and what it saved, and the
// HTML report charts each sequential gate.
func TestExperimentSequentialPlanRunAndReport(t *testing.T) {
	reg := registry(t)
	dir, _ := experimentProject(t)
	campaign := filepath.Join(dir, "house-style-sequential.experiment.json")
	b, err := os.ReadFile(campaign)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(campaign, []byte(strings.Replace(string(b), `"command": "echoagent"`, `"command": "`+agentBin+`"`, 1)), 0o644))
	runs := filepath.Join(dir, "runs")

	code, out, errOut := run(t, reg, "experiment", "-plan", campaign)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "worst case: 240 runs (every candidate, 10 rounds)")
	assert.Contains(t, out, "if every case passes 0.5 under the baseline and 0.9 under a variant")

	code, out, errOut = run(t, reg, "experiment", "-runs-root", runs, campaign)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "decided after 64 of at most 240 runs (saved 176), 3 rounds")
	assert.Contains(t, out, "by round (threshold 1/α = 40): 1: e=18.1 win rate [0.391, 1]; 2: e=56.8")
	assert.Contains(t, errOut, "round 2 of at most 10: variant-x #0 e=56.8 [0.479, 1] crossed")
	ledger := regexp.MustCompile(`ledger: (\S+)`).FindStringSubmatch(out)[1]

	html := filepath.Join(dir, "x.html")
	code, _, errOut = run(t, reg, "report", "-html", html, ledger)
	require.Equal(t, 0, code, errOut)
	page, err := os.ReadFile(html)
	require.NoError(t, err)
	assert.Contains(t, string(page), `<svg class="seqchart" id="seq-0"`)
	assert.Contains(t, string(page), `<svg class="seqchart" id="seq-1"`)
	assert.Contains(t, string(page), "1/α = 40")
}
