package experiment

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luxeval/lux/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sequentialize makes promoteFixture's campaign sequential: the gate is a
// sign test (pass rate ≥ 0 against the baseline), at most 6 rounds, and a
// variant winning fewer than 60 % of the discordant pairs is futile.
func sequentialize(c *Campaign) {
	c.Repetitions = Repetitions{}
	c.Sequential = &Sequential{MaxRounds: 6, FutilityWinRate: 0.6}
	c.Objectives.Constraints = []Constraint{{Metric: MetricPassRate, RelativeTo: BaselineID, Min: zero()}}
}

// journalRounds are the round lines of a ledger's journal.
func journalRounds(t *testing.T, dir string) []RoundRecord {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, JournalFile))
	require.NoError(t, err)
	var out []RoundRecord
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e journalEntry
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
		if e.Kind == "round" {
			out = append(out, *e.Round)
		}
	}
	return out
}

// The baseline passes 2 of 6 cases, variant-x all 6 and variant-y none:
// each round gives variant-x 4 discordant wins, variant-y 2 losses. The
// sign test at α = 0.05/2 (threshold 40) crosses after 8 wins, in round
// 2, and gives variant-y up as futile after 6 losses, in round 3; no
// variant runs a fourth round, and the decision says what was saved.
func TestSequentialCampaignStopsEachVariantWhenDecided(t *testing.T) {
	f, c := promoteFixture(t)
	sequentialize(c)
	var rounds []RoundProgress
	res, err := Run(ctx(t), testRegistry(t), c, Options{RunsRoot: filepath.Join(f.dir, ".lux-runs"), Concurrency: 2, Progress: func(p Progress) {
		if p.Round != nil {
			rounds = append(rounds, *p.Round)
		}
	}})
	require.NoError(t, err)
	assert.Equal(t, StatusPassed, res.Manifest.Status)
	assert.Equal(t, Promote, res.Decision.Outcome)
	assert.Equal(t, "variant-x", res.Decision.Champion)
	assert.Equal(t, 3*6+3*6+2*6, res.Manifest.Spent.Units, "rounds 1 and 2 for everyone, round 3 for the baseline and variant-y")
	assert.Equal(t, 108, res.Manifest.Units, "the worst case: 3 candidates × 6 cases × 6 rounds")
	assert.Equal(t, &SequentialSpend{Runs: 48, MaxRuns: 108, Rounds: 3}, res.Decision.Sequential)
	assert.Contains(t, res.Sentence(), "decided after 48 of at most 108 runs (saved 60), 3 rounds")
	assert.Contains(t, res.Sentence(), "promote variant-x: pass rate effect ≥ 0 (default, validation), sign-test e=")

	require.Len(t, rounds, 3)
	assert.Equal(t, []string{"variant-x", "variant-y"}, rounds[0].Active)
	assert.Equal(t, []string{"variant-y"}, rounds[1].Active)
	assert.Equal(t, []string{}, rounds[2].Active)

	gates := map[string]Gate{}
	for _, g := range res.Decision.Gates {
		gates[g.Candidate] = g
	}
	x, y := gates["variant-x"].Sequential, gates["variant-y"].Sequential
	require.NotNil(t, x)
	require.NotNil(t, y)
	assert.Equal(t, stats.Crossed, x.Stop)
	assert.Equal(t, 2, x.StoppedAt)
	assert.Equal(t, 8, x.Wins)
	assert.Equal(t, 0.025, x.Alpha)
	assert.GreaterOrEqual(t, x.MaxEValue, 40.0)
	assert.InDelta(t, 1/x.MaxEValue, x.PValue, 1e-12)
	assert.Equal(t, stats.Futile, y.Stop)
	assert.Equal(t, 3, y.StoppedAt)
	assert.Equal(t, 6, y.Losses)
	assert.True(t, gates["variant-x"].Passed)
	assert.False(t, gates["variant-y"].Passed)
	assert.False(t, gates["variant-y"].Inconclusive)
	assert.Contains(t, gates["variant-x"].Text(), "sign-test e=")
	assert.Contains(t, gates["variant-x"].Text(), "8 of 8 discordant pairs won in 12 pairs, round 2 of at most 6: passed")
	assert.Contains(t, gates["variant-y"].Text(), "futile: its futility test rejects a win rate of 0.6 or more among discordant pairs")
	require.Len(t, x.History, 2)
	require.Len(t, y.History, 3)

	// The journal records every gate after every round, and its last
	// states are the decision's.
	recs := journalRounds(t, res.Dir)
	require.Len(t, recs, 3)
	last := recs[2].Gates
	require.Len(t, last, 2)
	assert.Equal(t, x.History[1].LogE, last[0].Point.LogE)
	assert.Equal(t, y.History[2].LogE, last[1].Point.LogE)

	rep, err := BuildReport(ctx(t), res.Dir)
	require.NoError(t, err)
	var md bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&md))
	assert.Contains(t, md.String(), "saved 60")
}

func TestSequentialCampaignValidationNamesFieldAndFix(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(c *Campaign)
		want []string
	}{
		{"no max rounds", func(c *Campaign) { c.Sequential.MaxRounds = 0 }, []string{"sequential.maxRounds: required"}},
		{"min above max", func(c *Campaign) { c.Sequential.MinRounds = 9 }, []string{"sequential.minRounds: 9 is above maxRounds 6"}},
		{"alpha", func(c *Campaign) { c.Sequential.Alpha = 0.7 }, []string{"sequential.alpha: 0.7 is outside (0, 0.5]"}},
		{"futility", func(c *Campaign) { c.Sequential.FutilityWinRate = 0.4 }, []string{"sequential.futilityWinRate: 0.4 is outside (0.5, 1)"}},
		{"repetitions", func(c *Campaign) { c.Repetitions.Promotion = 3 }, []string{"repetitions.promotion: a sequential campaign repeats each case up to sequential.maxRounds times"}},
		{"sign test margin", func(c *Campaign) { v := 0.1; c.Objectives.Constraints[0].Min = &v },
			[]string{"objectives.constraints[0].test: the sign test tests \"no change\"; it cannot test the bound 0.1"}},
		{"confidence", func(c *Campaign) { c.Objectives.Constraints[0].Confidence = &Confidence{} },
			[]string{"objectives.constraints[0].confidence: the sequential test is the gate's confidence"}},
		{"unknown test", func(c *Campaign) { c.Objectives.Constraints[0].Test = "z" }, []string{`objectives.constraints[0].test: unknown test "z"`}},
		{"no gate", func(c *Campaign) { c.Objectives.Constraints[0].RelativeTo = "" },
			[]string{"objectives.constraints: a sequential campaign needs a constraint against the baseline to decide"}},
		{"no variant", func(c *Campaign) { c.Variants = nil }, []string{"variants: a sequential campaign decides variants against the baseline and has none"}},
		{"test without sequential", func(c *Campaign) { c.Sequential = nil; c.Objectives.Constraints[0].Test = TestSign },
			[]string{"objectives.constraints[0].test: only applies to a sequential campaign"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c := promoteFixture(t)
			sequentialize(c)
			tc.edit(c)
			err := c.Validate()
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// A campaign file is read strictly: a misspelt field of the sequential
// rule is an error naming the field.
func TestSequentialCampaignFileIsReadStrictly(t *testing.T) {
	f, _ := promoteFixture(t)
	f.write(t, "c.experiment.json", `{"id": "x", "subject": {"root": "subject", "mutable": ["AGENTS.md"]},
		"profiles": {"default": {"driver": {"name": "subprocess"}}},
		"splits": {"validation": {"patterns": ["cases/validation"]}},
		"objectives": {"constraints": [{"metric": "quality.passRate", "relativeTo": "baseline", "min": 0}]},
		"sequential": {"maxRounds": 5, "futilityWinrate": 0.7}}`)
	_, err := Load(filepath.Join(f.dir, "c.experiment.json"))
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "sequential.futilityWinrate"), err.Error())
}

// A ledger whose journaled e-process differs from what its units give is
// refused: the journal is the e-process a resume continues.
func TestSequentialLedgerWithAnEditedRoundIsRefused(t *testing.T) {
	f, c := promoteFixture(t)
	sequentialize(c)
	res, err := Run(ctx(t), testRegistry(t), c, Options{RunsRoot: filepath.Join(f.dir, ".lux-runs"), Concurrency: 2})
	require.NoError(t, err)
	_, err = BuildReport(ctx(t), res.Dir)
	require.NoError(t, err)
	path := filepath.Join(res.Dir, JournalFile)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	i := strings.LastIndex(string(data), `"wins":8`) // in round 3's line
	require.Positive(t, i)
	edited := string(data[:i]) + `"wins":9` + string(data[i+len(`"wins":8`):])
	require.NotEqual(t, string(data), edited)
	require.NoError(t, os.WriteFile(path, []byte(edited), 0o644))
	_, err = BuildReport(ctx(t), res.Dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the sequential tests the journal records after round 3 are not those its units give")
}

// -plan shows the worst case and, under the stated alternative, the
// expected spend of the sign test from stats.PlanSignTest.
func TestSequentialPlanShowsWorstCaseAndExpectedSpend(t *testing.T) {
	_, c := promoteFixture(t)
	sequentialize(c)
	c.Sequential.Plan = &SequentialPlan{Baseline: 0.5, Candidate: 0.9}
	p, err := Plan(ctx(t), testRegistry(t), c)
	require.NoError(t, err)
	sp := p.Sequential
	require.NotNil(t, sp)
	assert.Equal(t, 108, sp.WorstCaseRuns)
	assert.Equal(t, 6, sp.RunsPerRound)
	assert.Equal(t, 0.025, sp.TestAlpha)
	require.Len(t, sp.Gates, 1)
	g := sp.Gates[0]
	want, err := stats.PlanSignTest(stats.SignTestOptions{Alternative: stats.Greater, Level: 0.975, MinPairs: 6, MaxPairs: 36, Futility: 0.6},
		[]float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, []float64{0.9, 0.9, 0.9, 0.9, 0.9, 0.9}, stats.PlanOptions{})
	require.NoError(t, err)
	assert.Equal(t, want.MeanPairs, g.ExpectedPairs)
	assert.Equal(t, want.Crossed, g.Crossed)
	assert.Equal(t, 36, g.MaxPairs)
	assert.InDelta(t, want.MeanPairs/6, g.ExpectedRounds, 1e-12)
	var b strings.Builder
	p.WriteText(&b)
	assert.Contains(t, b.String(), "worst case: 108 runs (every candidate, 6 rounds)")
	assert.Contains(t, b.String(), "expected spend per variant:")
	assert.Contains(t, b.String(), "a fixed-size exact sign test of equal power needs")
	t.Log(b.String())
}

// A confidence-sequence gate observes one value per round, the round's
// mean paired difference: variant-x's is +4/6 every round, variant-y's
// −2/6, so the betting sequence crosses for variant-x and, with a
// futility margin, gives variant-y up; no decision before minRounds.
func TestSequentialCampaignWithABettingGate(t *testing.T) {
	f, c := promoteFixture(t)
	sequentialize(c)
	c.Sequential.MinRounds = 2
	c.Sequential.MaxRounds = 30
	c.Sequential.FutilityEffect = 0.1
	c.Objectives.Constraints[0].Test = TestBetting
	res, err := Run(ctx(t), testRegistry(t), c, Options{RunsRoot: filepath.Join(f.dir, ".lux-runs"), Concurrency: 2})
	require.NoError(t, err)
	assert.Equal(t, Promote, res.Decision.Outcome)
	assert.Equal(t, "variant-x", res.Decision.Champion)
	for _, g := range res.Decision.Gates {
		s := g.Sequential
		if s == nil {
			continue
		}
		assert.Equal(t, stats.BettingCS, s.Method)
		assert.Equal(t, "effect", s.Of)
		assert.GreaterOrEqual(t, s.StoppedAt, 2, "%s: no decision before minRounds", g.Candidate)
		assert.Less(t, s.StoppedAt, 30, "%s: decided before the cap", g.Candidate)
		require.NotNil(t, g.Lower)
		switch g.Candidate {
		case "variant-x":
			assert.Equal(t, stats.Crossed, s.Stop)
			assert.InDelta(t, 4.0/6, g.Value, 1e-9)
			assert.Greater(t, *g.Lower, 0.0, "the sequence excludes 0")
		case "variant-y":
			assert.Equal(t, stats.Futile, s.Stop)
			assert.Less(t, *g.Upper, 0.1, "the sequence excludes the effect worth promoting")
			assert.Contains(t, g.Text(), "futile: an effect of +0.1 or more is excluded")
		}
	}
	t.Log(res.Sentence())
}

// A variant that is better on the estimate but whose test has not
// crossed by maxRounds is undecided — inconclusive, never promoted.
func TestSequentialCampaignUndecidedAtTheCapIsInconclusive(t *testing.T) {
	f, c := promoteFixture(t)
	sequentialize(c)
	c.Sequential.MaxRounds = 1
	res, err := Run(ctx(t), testRegistry(t), c, Options{RunsRoot: filepath.Join(f.dir, ".lux-runs"), Concurrency: 2})
	require.NoError(t, err)
	assert.Equal(t, Inconclusive, res.Decision.Outcome)
	assert.Empty(t, res.Decision.Champion)
	assert.Equal(t, StatusFailed, res.Manifest.Status)
	for _, g := range res.Decision.Gates {
		if g.Candidate == "variant-x" {
			assert.False(t, g.Passed)
			assert.True(t, g.Inconclusive)
			assert.Equal(t, stats.MaxReached, g.Sequential.Stop)
		}
	}
	assert.Contains(t, res.Sentence(), "inconclusive: no decision within the rounds allowed (")
	assert.Contains(t, res.Sentence(), "variant-x: sign-test undecided after 1 rounds")
	assert.Contains(t, res.Sentence(), "stopped undecided after 18 of at most 18 runs (saved 0), 1 rounds")
}
