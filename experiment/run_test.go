package experiment

import (
	"bytes"
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/orchestrator"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func zero() *float64 { v := 0.0; return &v }

// promoteFixture: the baseline's instructions pass 2 of 6 cases, variant-x
// passes all, variant-y fails all.
func promoteFixture(t *testing.T) (*fixture, *Campaign) {
	f := newFixture(t, "write a.txt alpha\n")
	for i, word := range []string{"alpha", "alpha", "beta", "beta", "beta", "beta"} {
		f.addCase(t, "validation", "case-"+string(rune('a'+i)), "", "a.txt", word)
	}
	c := f.campaign(t)
	c.Variants = []Variant{
		{ID: "variant-x", Files: map[string]string{"AGENTS.md": "write a.txt alpha beta\n"}},
		{ID: "variant-y", Files: map[string]string{"AGENTS.md": "fail\n"}},
	}
	c.Objectives.Constraints = []Constraint{{Metric: MetricPassRate, RelativeTo: BaselineID, Min: zero(), Confidence: &Confidence{}}}
	return f, c
}

func TestRunPromotesTheVariantThatFixesTheCasesAndRejectsTheWorseOne(t *testing.T) {
	f, c := promoteFixture(t)
	runs := filepath.Join(f.dir, ".lux-runs")
	res, err := Run(ctx(t), testRegistry(t), c, Options{RunsRoot: runs, Concurrency: 2})
	require.NoError(t, err)
	assert.Equal(t, StatusPassed, res.Manifest.Status)
	assert.Equal(t, Promote, res.Decision.Outcome)
	assert.Equal(t, "variant-x", res.Decision.Champion)
	assert.Equal(t, []string{"variant-x", "baseline", "variant-y"}, res.Decision.Ranking)
	assert.Contains(t, res.Sentence(), "promote variant-x: pass rate effect (default, validation) +0.667 [")
	verdicts := strings.Join(res.Verdicts(), "\n")
	assert.Contains(t, verdicts, "reject variant-y: pass rate effect (default, validation) -0.333")

	e := findEffect(res.Effects, "variant-x", "default", "validation", MetricPassRate)
	require.NotNil(t, e)
	assert.Equal(t, 6, e.Cases)
	assert.InDelta(t, 2.0/6, e.Baseline, 1e-9)
	assert.InDelta(t, 1.0, e.Value, 1e-9)

	// 3 candidates × 6 cases, each an ordinary run with its record.
	assert.Equal(t, 18, res.Manifest.Spent.Units)
	l, err := Open(res.Dir)
	require.NoError(t, err)
	require.Len(t, l.Units, 18)
	for _, u := range l.Units {
		_, err := os.Stat(filepath.Join(runs, filepath.FromSlash(u.RunDir), "run.json"))
		require.NoError(t, err, "unit %s has its run record", u.ID)
	}

	rep, err := BuildReport(ctx(t), res.Dir)
	require.NoError(t, err)
	var md bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&md))
	assert.Contains(t, md.String(), "**promote variant-x: pass rate effect (default, validation) +0.667 [")
	assert.Contains(t, md.String(), "lux apply '"+res.Dir+"'")

	applied, err := Apply(ctx(t), res.Dir, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"AGENTS.md"}, applied.Files)
	got, _ := os.ReadFile(filepath.Join(f.dir, "subject", "AGENTS.md"))
	assert.Equal(t, "write a.txt alpha beta\n", string(got))
}

// The driver's natural form names the subject's file as the agent's
// argument: the subprocess driver records it as a script of the runtime,
// whose content differs by candidate on purpose. It is the subject, not
// the runtime: every case still pairs with the baseline's.
func TestASubjectFileGivenAsAnArgumentIsTheSubject(t *testing.T) {
	f, c := promoteFixture(t)
	exe, err := os.Executable()
	require.NoError(t, err)
	c.Profiles["default"] = Profile{Driver: &lux.PluginRef{Name: "subprocess", Config: map[string]any{
		"command": exe,
		"args":    []string{orchestrator.SubjectRootToken + "/AGENTS.md"},
		"env":     map[string]string{"LUX_TEST_AGENT": "1"},
	}}}
	res, err := Run(ctx(t), testRegistry(t), c, Options{RunsRoot: filepath.Join(f.dir, ".lux-runs")})
	require.NoError(t, err)
	assert.Equal(t, Promote, res.Decision.Outcome)
	e := findEffect(res.Effects, "variant-x", "default", "validation", MetricPassRate)
	require.NotNil(t, e)
	assert.Equal(t, 6, e.Cases, "every case pairs")
}
