package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/assertion/rubric"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/harness"
	"github.com/luxeval/lux/labels"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// The judge of these tests answers from what it is sent: a criterion
// saying LENIENT passes every run, STRICT only a run whose a.txt says
// RESULT=GOOD, and any other (the baseline's) also RESULT=PARTIAL.
const (
	judgePass = `{"score": 0.9, "comment": "meets the criterion"}`
	judgeFail = `{"score": 0.1, "comment": "misses the criterion"}`
)

func judgeAnswer(prompt string) string {
	good := strings.Contains(prompt, "RESULT=GOOD")
	partial := strings.Contains(prompt, "RESULT=PARTIAL")
	switch {
	case strings.Contains(prompt, "LENIENT"):
		return judgePass
	case strings.Contains(prompt, "STRICT"):
		if good {
			return judgePass
		}
	case good || partial:
		return judgePass
	}
	return judgeFail
}

// routeJudge is an in-process judge answering with judgeAnswer.
type routeJudge struct{}

func (routeJudge) Name() string { return "test:route-judge" }
func (routeJudge) Complete(ctx context.Context, req harness.Request) (harness.Response, error) {
	if err := countJudgeCall(ctx); err != nil {
		return harness.Response{}, err
	}
	cost := 0.001
	return harness.Response{Text: judgeAnswer(req.Prompt), Usage: lux.TokenUsage{Input: 100, Output: 10}, CostUSD: &cost, Model: "route-judge"}, nil
}

func routeFactory(harness.Config) (harness.Model, error) { return routeJudge{}, nil }

// graderRegistry is the built-in assertions and a rubric whose judge is
// factory (nil: the real harness providers).
func graderRegistry(factory harness.Factory) (*lux.Registry, error) {
	reg := lux.NewRegistry()
	errs := []error{reg.RegisterDriver(subprocess.Plugin()), assertion.Register(reg)}
	errs = append(errs, reg.RegisterAssertion(rubric.PluginWith(rubric.Options{Factory: factory})))
	return reg, errors.Join(errs...)
}

// The frozen runs: three whose a.txt says RESULT=GOOD (labelled pass),
// one RESULT=PARTIAL and two RESULT=BAD (labelled fail). Alice labels
// all six; Bob labels c1 and c5 too, as Alice did.
var frozenRuns = []struct {
	caseID, result string
	pass           bool
	annotators     []string
}{
	{"c1", "GOOD", true, []string{"alice", "bob"}},
	{"c2", "GOOD", true, []string{"alice"}},
	{"c3", "GOOD", true, []string{"alice"}},
	{"c4", "PARTIAL", false, []string{"alice"}},
	{"c5", "BAD", false, []string{"alice", "bob"}},
	{"c6", "BAD", false, []string{"alice"}},
}

// graderCampaignJSON is the grader campaign of the fixture: the baseline
// rubric, a lenient and a strict variant; a rubric may pass at most 20 %
// of the labelled failures and must agree with at least 80 % of the case
// verdicts.
const graderCampaignJSON = `{
  "id": "judge-rubric",
  "subject": {"root": "rubrics", "mutable": ["quality.md"]},
  "grader": {"labels": "labels.json", "rubrics": [{"assertion": "quality", "file": "quality.md"}]},
  "splits": {"validation": {"tags": ["validation"]}},
  "repetitions": {"promotion": %d},
  "variants": [
    {"id": "lenient", "files": {"quality.md": "LENIENT: pass any run that wrote a.txt.\n"}},
    {"id": "strict", "files": {"quality.md": "STRICT: pass only a run whose a.txt reports a good result.\n"}}
  ],
  "objectives": {"constraints": [
    {"metric": "judge.falsePositiveRate", "max": 0.2},
    {"metric": "judge.agreementRate", "min": 0.8}
  ]}
}`

// writeGraderFixture records the frozen runs under dir/frozen (the test
// binary as the agent, a judge that passes everything at the time),
// labels them in dir/labels.json and writes the rubric subject and the
// campaign file (repetitions of the judge: reps). It returns the
// campaign file.
func writeGraderFixture(t testing.TB, dir string, reps int) string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	reg, err := graderRegistry(func(harness.Config) (harness.Model, error) { return passAll{}, nil })
	require.NoError(t, err)
	agents := filepath.Join(dir, "agents")
	require.NoError(t, os.MkdirAll(agents, 0o755))
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: filepath.Join(dir, "frozen"), SubjectRoot: agents})
	dataset := filepath.Join(dir, "labels.json")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, fr := range frozenRuns {
		name := "agent-" + fr.caseID + ".txt"
		require.NoError(t, os.WriteFile(filepath.Join(agents, name), []byte("write a.txt RESULT="+fr.result+"\n"), 0o644))
		instr := orchestrator.SubjectRootToken + "/" + name
		c := &lux.Case{
			ID: fr.caseID, Prompt: "write a.txt with your result",
			Driver: &lux.PluginRef{Name: "subprocess", Config: map[string]any{
				"command": exe, "env": map[string]string{"LUX_TEST_AGENT": "1", "INSTRUCTIONS": instr},
			}},
			Assertions: []lux.AssertionSpec{{Type: rubric.Type, ID: "quality", Config: map[string]any{
				"criteria": "The run is good.", "evidence": map[string]any{"artifacts": []string{"a.txt"}},
			}}},
		}
		res, err := o.Run(context.Background(), c)
		require.NoError(t, err)
		require.Equal(t, record.VerdictPass, res.Verdict(), "the frozen run of %s: %s %+v", fr.caseID, res.Metadata.Reason, res.Grading)
		for _, who := range fr.annotators {
			l, err := labels.ForRun(dataset, res.Dir, who)
			require.NoError(t, err)
			pass := fr.pass
			l.Expected.Passed = &pass
			l.Tags = []string{"validation"}
			l.LabeledAt = at
			_, err = labels.Upsert(dataset, l)
			require.NoError(t, err)
		}
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "rubrics"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rubrics", "quality.md"), []byte("MEDIUM: pass a run whose a.txt reports a good or partial result.\n"), 0o644))
	path := filepath.Join(dir, graderCampaignFile)
	require.NoError(t, os.WriteFile(path, fmt.Appendf(nil, graderCampaignJSON, reps), 0o644))
	return path
}

// graderCampaignFile is the fixture's campaign file.
const graderCampaignFile = "grader.experiment.json"

// passAll is the judge the frozen runs were graded with.
type passAll struct{}

func (passAll) Name() string { return "test:pass-all" }
func (passAll) Complete(context.Context, harness.Request) (harness.Response, error) {
	return harness.Response{Text: judgePass, Model: "pass-all"}, nil
}

// checkGraderDecision checks what every grader test of the fixture
// decides: the lenient rubric rejected for its false positives, the
// strict one promoted, and the baseline's agreement as computed by hand.
func checkGraderDecision(t *testing.T, res *Result, reps int) {
	t.Helper()
	assert.Equal(t, StatusPassed, res.Manifest.Status)
	assert.Equal(t, Promote, res.Decision.Outcome)
	assert.Equal(t, "strict", res.Decision.Champion)
	assert.Equal(t, []string{"strict"}, res.Decision.Eligible)
	gate := func(cand, metric string) Gate {
		for _, g := range res.Decision.Gates {
			if g.Candidate == cand && g.Metric == metric {
				return g
			}
		}
		t.Fatalf("no gate of %s on %s", cand, metric)
		return Gate{}
	}
	assert.False(t, gate("lenient", MetricFalsePositive).Passed, "the lenient rubric passes labelled failures")
	assert.InDelta(t, 1.0, gate("lenient", MetricFalsePositive).Value, 1e-9)
	assert.True(t, gate("strict", MetricFalsePositive).Passed)
	assert.InDelta(t, 0.0, gate("strict", MetricFalsePositive).Value, 1e-9)
	assert.False(t, gate("baseline", MetricFalsePositive).Passed, "the baseline passes the partial run")

	// 3 candidates × 8 labels × reps, each one judge call.
	assert.Equal(t, 3*8*reps, res.Manifest.Spent.Units)
	assert.Equal(t, 3*8*reps, res.Manifest.Spent.JudgeCalls)

	// The baseline against the labels, by hand: it passes c1–c4, so of
	// the 8 labels TP 4 (c1 twice, c2, c3), FP 1 (c4), FN 0, TN 3 (c5
	// twice, c6).
	//   Cohen's kappa: po = 7/8; pe = P(label pass)·P(graded pass) +
	//   P(label fail)·P(graded fail) = 4/8·5/8 + 4/8·3/8 = 1/2;
	//   kappa = (7/8 − 1/2)/(1 − 1/2) = 0.75 (the repetitions repeat
	//   every pair, which leaves the proportions as they are).
	//   Krippendorff's alpha (nominal): 8·reps units of two values, n =
	//   16·reps values, of which 1 (pass) 9·reps and 0 (fail) 7·reps; the
	//   ordered disagreeing pairs are 2 per disagreeing unit, 2·reps in
	//   all; alpha = 1 − (n − 1)·2·reps/(2·n1·n0).
	var base *Agreement
	for i := range res.Agreement {
		if res.Agreement[i].Candidate == BaselineID {
			base = &res.Agreement[i]
		}
	}
	require.NotNil(t, base)
	c := base.Report.Case
	assert.Equal(t, [4]int{4 * reps, 1 * reps, 0, 3 * reps}, [4]int{c.TP, c.FP, c.FN, c.TN})
	require.NotNil(t, c.Kappa.Estimate, c.Kappa.Undefined)
	assert.InDelta(t, 0.75, *c.Kappa.Estimate, 1e-9)
	n, n1, n0 := 16.0*float64(reps), 9.0*float64(reps), 7.0*float64(reps)
	require.NotNil(t, c.Alpha.Estimate, c.Alpha.Undefined)
	assert.InDelta(t, 1-(n-1)*2*float64(reps)/(2*n1*n0), *c.Alpha.Estimate, 1e-9)
	assert.InDelta(t, 0.25, *c.FalsePositiveRate, 1e-9)
	require.NotNil(t, base.Annotators, "Alice and Bob labelled two runs alike: the ceiling is shown")
}

func TestGraderExperimentRejectsALenientRubricAndPromotesAStricterOne(t *testing.T) {
	dir := t.TempDir()
	path := writeGraderFixture(t, dir, 2)
	c, err := Load(path)
	require.NoError(t, err)
	reg, err := graderRegistry(routeFactory)
	require.NoError(t, err)
	plan, err := Plan(ctx(t), reg, c)
	require.NoError(t, err)
	// At most: each unit reserves a rubric's rubric.Attempts calls.
	assert.Equal(t, Projected{Candidates: 3, Runs: 48, JudgeCalls: 48 * rubric.Attempts}, plan.Projected)
	assert.Equal(t, []string{GraderProfile}, plan.Profiles)
	res, err := Run(ctx(t), reg, c, Options{RunsRoot: filepath.Join(dir, "runs"), Concurrency: 2})
	require.NoError(t, err)
	checkGraderDecision(t, res, 2)

	// Each unit names its labelled run relative to the runs root.
	l, err := Open(res.Dir)
	require.NoError(t, err)
	for _, u := range l.Units {
		_, err := os.Stat(filepath.Join(l.RunsRoot, filepath.FromSlash(u.RunDir), "run.json"))
		require.NoError(t, err, "unit %s names its run", u.ID)
		require.NotNil(t, u.Grading)
		require.Equal(t, u.CaseID, u.Label.ID)
	}

	// Nothing of the frozen runs changed: no grading was written there.
	matches, err := filepath.Glob(filepath.Join(dir, "frozen", "*", "*", "*", "gradings"))
	require.NoError(t, err)
	assert.Empty(t, matches)

	rep, err := BuildReport(ctx(t), res.Dir)
	require.NoError(t, err)
	var md strings.Builder
	require.NoError(t, rep.WriteMarkdown(&md))
	assert.Contains(t, md.String(), "## Agreement with the labels")
	assert.Contains(t, md.String(), "baseline (validation): 16 gradings")
	assert.Contains(t, md.String(), "annotators (the ceiling)")

	applied, err := Apply(ctx(t), res.Dir, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"quality.md"}, applied.Files)
	got, err := os.ReadFile(filepath.Join(dir, "rubrics", "quality.md"))
	require.NoError(t, err)
	assert.Contains(t, string(got), "STRICT")
}

// A label whose run is not the one labelled, or whose evidence changed,
// is refused before any judge is asked.
func TestGraderExperimentRefusesChangedRuns(t *testing.T) {
	dir := t.TempDir()
	path := writeGraderFixture(t, dir, 1)
	d, err := labels.Load(filepath.Join(dir, "labels.json"))
	require.NoError(t, err)
	runDir := labels.RunDir(filepath.Join(dir, "labels.json"), d.Labels[0])
	// The agent's file is changed after the run was labelled.
	require.NoError(t, os.WriteFile(filepath.Join(runDir, "artifacts", "a.txt"), []byte("RESULT=GOOD, edited"), 0o644))
	c, err := Load(path)
	require.NoError(t, err)
	reg, err := graderRegistry(func(harness.Config) (harness.Model, error) {
		t.Error("the judge was asked")
		return routeJudge{}, nil
	})
	require.NoError(t, err)
	_, err = Run(ctx(t), reg, c, Options{RunsRoot: filepath.Join(dir, "runs")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the labelled runs changed since they were labelled")
	assert.Contains(t, err.Error(), "label "+d.Labels[0].ID)

	// A label naming another run id.
	d.Labels[1].RunID = "someone-else"
	require.NoError(t, labels.Save(filepath.Join(dir, "labels.json"), d))
	_, err = Load(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the label names another run")
}

// Judge calls obey the budget: a unit starts only when the most calls it
// can make fit in maxJudgeCalls.
func TestGraderExperimentStopsAtTheJudgeCallBudget(t *testing.T) {
	dir := t.TempDir()
	path := writeGraderFixture(t, dir, 1)
	c, err := Load(path)
	require.NoError(t, err)
	c.Budget.MaxJudgeCalls = 5
	reg, err := graderRegistry(routeFactory)
	require.NoError(t, err)
	res, err := Run(ctx(t), reg, c, Options{RunsRoot: filepath.Join(dir, "runs"), Concurrency: 3})
	require.Error(t, err)
	// A unit reserves the most calls it can make (rubric.Attempts): the
	// fifth unit, one call short, does not start.
	assert.Contains(t, err.Error(), "the maxJudgeCalls budget of 5 is used up: 4 judge calls made, and the next unit could make up to 2")
	assert.Equal(t, 4, res.Manifest.Spent.JudgeCalls)
	assert.Equal(t, StatusFailed, res.Manifest.Status)
}

// The campaign file's grader rules: no profiles, splits by tag.
func TestGraderCampaignValidation(t *testing.T) {
	dir := t.TempDir()
	path := writeGraderFixture(t, dir, 1)
	var raw map[string]any
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &raw))
	raw["profiles"] = map[string]any{"default": map[string]any{"driver": map[string]any{"name": "subprocess"}}}
	raw["splits"] = map[string]any{"validation": map[string]any{"patterns": []string{"cases"}}}
	raw["grader"].(map[string]any)["rubrics"] = []any{map[string]any{"assertion": "missing", "file": "quality.md"}}
	data, _ = json.Marshal(raw)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	_, err = Load(path)
	require.ErrorIs(t, err, ErrInvalidCampaign)
	for _, want := range []string{"profiles: a grader experiment has no profiles", "splits.validation.patterns: a grader experiment selects labels", "splits.validation.tags: required"} {
		assert.Contains(t, err.Error(), want)
	}
}

// A constraint on an agreement coefficient is refused with the reason
// and the rates to gate on instead.
func TestGraderCampaignRefusesGatesOnKappaAndAlpha(t *testing.T) {
	dir := t.TempDir()
	path := writeGraderFixture(t, dir, 1)
	for _, metric := range []string{"judge.kappa", "judge.alpha"} {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var raw map[string]any
		require.NoError(t, json.Unmarshal(data, &raw))
		raw["objectives"] = map[string]any{"constraints": []any{map[string]any{"metric": metric, "min": 0.6}}}
		data, err = json.Marshal(raw)
		require.NoError(t, err)
		other := filepath.Join(dir, "kappa.experiment.json")
		require.NoError(t, os.WriteFile(other, data, 0o644))
		_, err = Load(other)
		require.ErrorIs(t, err, ErrInvalidCampaign)
		assert.Contains(t, err.Error(), "kappa and alpha are not gates")
		assert.Contains(t, err.Error(), "gate on judge.agreementRate, judge.falsePositiveRate")
	}
}

// A grader experiment resumed with another judge CLI (here: another
// version) is refused: gradings of two judges are never pooled. The same
// judge resumes and finishes.
func TestGraderExperimentRefusesToResumeWithAnotherJudge(t *testing.T) {
	dir := t.TempDir()
	path := writeGraderFixture(t, dir, 1)
	judge := filepath.Join(dir, "bin", "claude")
	version := func(v string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(judge), 0o755))
		require.NoError(t, os.WriteFile(judge, []byte("#!/bin/sh\necho '"+v+" (Claude Code)'\n"), 0o755))
	}
	version("2.0.1")
	c, err := Load(path)
	require.NoError(t, err)
	c.Grader.Judge.Command = judge
	c.Budget.MaxJudgeCalls = 4
	reg, err := graderRegistry(routeFactory)
	require.NoError(t, err)
	res, err := Run(ctx(t), reg, c, Options{RunsRoot: filepath.Join(dir, "runs")})
	require.Error(t, err, "the budget stops it after 4 units")
	assert.Contains(t, string(res.Manifest.Profiles[GraderProfile].DriverIdentity), "2.0.1")

	version("2.0.2")
	c.Budget.MaxJudgeCalls = 4 // the same campaign
	_, err = Resume(ctx(t), reg, res.Dir, c, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "profile judge: the driver's identity changed")

	version("2.0.1")
	_, err = Resume(ctx(t), reg, res.Dir, c, Options{})
	require.Error(t, err, "the same judge resumes, and the budget stops it again")
	assert.Contains(t, err.Error(), "maxJudgeCalls")
}
