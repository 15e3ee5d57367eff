package cli_test

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/luxeval/lux/internal/harnesstest"
	"github.com/luxeval/lux/modeltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func proposalReply(rationale, agents string) string {
	b, _ := json.Marshal(map[string]any{"proposals": []any{map[string]any{"rationale": rationale, "updates": map[string]string{"AGENTS.md": agents}}}})
	return string(b)
}

// TestOptimizeSearchesReportsTheLineageAndApplies runs lux optimize on
// examples/optimize/project with the real Claude Code CLI as the
// optimizer's model, scripted: a reply that is not JSON, an overfit that
// fits the train cases only, then the fix. The held-out gates promote the
// fix; lux report shows the lineage; lux apply writes it.
func TestOptimizeSearchesReportsTheLineageAndApplies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Claude Code CLI")
	}
	reg := registry(t)
	srv := harnesstest.Server(t, modeltest.Script{
		{Text: "Use tabs.", Usage: modeltest.Usage{InputTokens: 900, OutputTokens: 5}},
		{Text: proposalReply("mention tabs", "write STYLE.md containing \"tabs\".\n"), Usage: modeltest.Usage{InputTokens: 1000, OutputTokens: 40}},
		{Text: proposalReply("state the rule", "write STYLE.md containing \"indent with tabs\".\n"), Usage: modeltest.Usage{InputTokens: 1000, OutputTokens: 40}},
	})
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join("..", "examples", "optimize", "project"))))
	campaign := filepath.Join(dir, "house-style.optimize.json")
	var c map[string]any
	b, err := os.ReadFile(campaign)
	require.NoError(t, err)
	b = []byte(strings.Replace(string(b), `"command": "echoagent"`, `"command": "`+agentBin+`"`, 1))
	require.NoError(t, json.Unmarshal(b, &c))
	c["optimizer"].(map[string]any)["model"] = harnesstest.Claude(t, srv)
	b, err = json.Marshal(c)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(campaign, b, 0o644))
	runs := filepath.Join(dir, "runs")

	code, out, errOut := run(t, reg, "optimize", "-runs-root", runs, "-j", "2", campaign)
	require.Equal(t, 0, code, errOut+out)
	assert.Contains(t, out, "search stopped: the proposal calls budget (3) is used up")
	assert.Contains(t, out, "baseline → c1  train pass rate 0.000 → 1.000 (+1.000)  mention tabs")
	assert.Contains(t, out, "c1 → c2  train pass rate 1.000 → 1.000 (+0.000)  state the rule")
	assert.Contains(t, out, "held-out decision: promote c2")
	assert.Contains(t, errOut, "proposal call 1 failed")
	for _, r := range srv.TurnRequests() {
		assert.NotContains(t, string(r.Body), "validation-", "no validation case in a prompt")
		assert.NotContains(t, string(r.Body), "test-", "no test case in a prompt")
	}
	ledger := regexp.MustCompile(`ledger: (\S+\.experiments\S+)`).FindStringSubmatch(out)[1]

	code, out, errOut = run(t, reg, "report", ledger)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "## Search lineage")
	assert.Contains(t, out, "- c1 → c2  train pass rate 1.000 → 1.000 (+0.000)  state the rule")

	pagePath := filepath.Join(dir, "report.html")
	code, _, errOut = run(t, reg, "report", "-html", pagePath, ledger)
	require.Equal(t, 0, code, errOut)
	page, err := os.ReadFile(pagePath)
	require.NoError(t, err)
	assert.Contains(t, string(page), "Search lineage")
	assert.Contains(t, html.UnescapeString(string(page)), "<li>c1 → c2  train pass rate 1.000 → 1.000 (+0.000)  state the rule</li>")

	code, _, errOut = run(t, reg, "apply", ledger)
	require.Equal(t, 0, code, errOut)
	got, err := os.ReadFile(filepath.Join(dir, "subject", "AGENTS.md"))
	require.NoError(t, err)
	assert.Equal(t, "write STYLE.md containing \"indent with tabs\".\n", string(got))

	code, _, errOut = run(t, reg, "experiment", campaign)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "run it with lux optimize")
}
