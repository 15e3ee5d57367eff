package experiment

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func num(v float64) *float64 { return &v }

func TestCampaignValidation(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(f *fixture, c *Campaign)
		wanted []string
	}{
		{"id required", func(_ *fixture, c *Campaign) { c.ID = "" }, []string{"id: required"}},
		{"subject root missing", func(_ *fixture, c *Campaign) { c.Subject.Root = "nowhere" }, []string{"subject.root:", "is not a directory"}},
		{"mutable required", func(_ *fixture, c *Campaign) { c.Subject.Mutable = nil }, []string{"subject.mutable: required"}},
		{"bad glob", func(_ *fixture, c *Campaign) { c.Subject.Mutable = []string{"../x"} }, []string{"subject.mutable[0]:", "climbs out"}},
		{"validation arguments stay in the tree", func(_ *fixture, c *Campaign) {
			c.Subject.Validate = []Command{{Command: "go", Args: []string{"vet", "./...", "https://x", "--config=/etc/x", "-I../up", "@/tmp/args", "-C", "sub"}}}
		}, []string{`subject.validate[0].args[2]: "https://x" names a URL`, `args[3]: "--config=/etc/x" is an absolute path`,
			`args[4]: "-I../up" climbs out`, `args[5]: "@/tmp/args" is an absolute path`}},
		{"profiles required", func(_ *fixture, c *Campaign) { c.Profiles = nil }, []string{"profiles: required"}},
		{"profile driver required", func(_ *fixture, c *Campaign) { c.Profiles["default"] = Profile{} }, []string{"profiles.default.driver: required"}},
		{"validation split required", func(_ *fixture, c *Campaign) { c.Splits.Validation = nil }, []string{"splits.validation: required"}},
		{"optimizer: known algorithm, a train split, no fixed variants, a known provider", func(_ *fixture, c *Campaign) {
			c.Optimizer = &OptimizerSpec{Algorithm: "genetic", ProposalsPerCall: 5}
			c.Optimizer.Model.Provider = "gemini"
			c.Variants = []Variant{{ID: "v", Files: map[string]string{"AGENTS.md": "x"}}}
		}, []string{`optimizer.algorithm: unknown "genetic"`, "optimizer.proposalsPerCall: must be 1 to 4", "splits.train: an optimizer needs a train split",
			"variants: a campaign with an optimizer has no fixed variants", `optimizer.model.provider: unknown provider "gemini"`}},
		{"variant named baseline", func(_ *fixture, c *Campaign) {
			c.Variants = []Variant{{ID: "baseline", Files: map[string]string{"AGENTS.md": "x"}}}
		}, []string{`variants[0].id: "baseline" is the subject as it is`}},
		{"variant id not a slug", func(_ *fixture, c *Campaign) {
			c.Variants = []Variant{{ID: "Bad Id", Files: map[string]string{"AGENTS.md": "x"}}}
		}, []string{`variants[0].id: "Bad Id" is not a valid id`}},
		{"duplicate variant", func(_ *fixture, c *Campaign) {
			v := Variant{ID: "v", Files: map[string]string{"AGENTS.md": "x"}}
			c.Variants = []Variant{v, v}
		}, []string{`variants[1].id: duplicate id "v"`}},
		{"variant without files", func(_ *fixture, c *Campaign) { c.Variants = []Variant{{ID: "v"}} }, []string{"variants[0].files: required"}},
		{"too many candidates", func(_ *fixture, c *Campaign) {
			c.Budget.MaxCandidates = 1
			c.Variants = []Variant{{ID: "v", Files: map[string]string{"AGENTS.md": "x"}}}
		}, []string{"budget.maxCandidates: the campaign has 2 candidates"}},
		{"unknown metric, profile and split", func(_ *fixture, c *Campaign) {
			c.Objectives.Constraints = []Constraint{{Metric: "agent.totl", Profile: "fast", Split: "test", Min: num(0)}}
		}, []string{`constraints[0].metric: unknown metric "agent.totl"`, `constraints[0].profile: unknown profile "fast"`, `constraints[0].split: unknown split "test"`}},
		{"bound required", func(_ *fixture, c *Campaign) {
			c.Objectives.Constraints = []Constraint{{Metric: MetricPassRate}}
		}, []string{"constraints[0]: needs min or max"}},
		{"min above max", func(_ *fixture, c *Campaign) {
			c.Objectives.Constraints = []Constraint{{Metric: MetricPassRate, Min: num(0.9), Max: num(0.5)}}
		}, []string{"min 0.9 is above max 0.5"}},
		{"hoeffding on tokens", func(_ *fixture, c *Campaign) {
			c.Objectives.Constraints = []Constraint{{Metric: "agent.total", Max: num(100), Confidence: &Confidence{Method: stats.Hoeffding}}}
		}, []string{"hoeffding applies only to metrics in [0, 1], not agent.total"}},
		{"wilson bound outside [0,1]", func(_ *fixture, c *Campaign) {
			c.Objectives.Constraints = []Constraint{{Metric: MetricPassRate, Min: num(2), Confidence: &Confidence{Method: stats.Wilson}}}
		}, []string{"wilson bounds a value in [0, 1]; 2 is outside"}},
		{"wilson on repeated runs", func(_ *fixture, c *Campaign) {
			c.Repetitions.Promotion = 3
			c.Objectives.Constraints = []Constraint{{Metric: MetricPassRate, Min: num(0.5), Confidence: &Confidence{Method: stats.Wilson}}}
		}, []string{wilsonRepeated}},
		{"wilson on clustered cases", func(f *fixture, c *Campaign) {
			f.addCase(t, "validation", "clustered", "repo-a", "a.txt", "gamma")
			c.Objectives.Constraints = []Constraint{{Metric: MetricPassRate, Min: num(0.5), Confidence: &Confidence{Method: stats.Wilson}}}
		}, []string{wilsonClustered}},
		{"wilson on an effect", func(_ *fixture, c *Campaign) {
			c.Objectives.Constraints = []Constraint{{Metric: MetricPassRate, RelativeTo: BaselineID, Min: num(0), Confidence: &Confidence{Method: stats.Wilson}}}
		}, []string{"wilson does not apply to paired differences"}},
		{"relative without relativeTo", func(_ *fixture, c *Campaign) {
			c.Objectives.Constraints = []Constraint{{Metric: "agent.total", Relative: true, Max: num(0.1)}}
		}, []string{"constraints[0].relative: only applies to an effect"}},
		{"test split without a test constraint", func(f *fixture, c *Campaign) {
			f.addCase(t, "test", "held-out", "", "a.txt", "delta")
			c.Splits.Test = &Selector{Patterns: []string{"cases/test"}}
		}, []string{"the campaign has a test split but no constraint on it"}},
		{"case in two splits", func(_ *fixture, c *Campaign) {
			c.Splits.Train = &Selector{Patterns: []string{"cases/validation/one.case.json"}}
		}, []string{`case "one" is also in split train`}},
		{"cluster across splits", func(f *fixture, c *Campaign) {
			f.addCase(t, "train", "t1", "repo-a", "a.txt", "epsilon")
			f.addCase(t, "validation", "v1", "repo-a", "a.txt", "zeta")
			c.Splits.Train = &Selector{Patterns: []string{"cases/train"}}
		}, []string{`cluster "repo-a" of case "v1" is also in split train`}},
		{"leak: the same case under another id", func(f *fixture, c *Campaign) {
			f.addCase(t, "train", "one-again", "", "a.txt", "alpha")
			f.write(t, "cases/train/one-again.case.json", `{"id": "one-again", "prompt": "do one", "assertions": [{"type": "file-contains", "path": "a.txt", "text": "alpha"}]}`)
			c.Splits.Train = &Selector{Patterns: []string{"cases/train"}}
		}, []string{`has the same prompt, fixtures and assertions as case`, "leaks what is measured"}},
		{"pattern matches nothing", func(_ *fixture, c *Campaign) {
			c.Splits.Validation = &Selector{Patterns: []string{"cases/none/*.case.json"}}
		}, []string{"splits.validation.patterns: match no case file"}},
		{"case names another driver", func(f *fixture, c *Campaign) {
			f.write(t, "cases/validation/own.case.json", `{"id": "own", "prompt": "p", "driver": "codex"}`)
		}, []string{`case "own" names driver "codex" but profile default runs "subprocess" {`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "write a.txt alpha\n")
			f.addCase(t, "validation", "one", "", "a.txt", "alpha")
			c := f.campaign(t)
			tt.edit(f, c)
			err := c.Validate()
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalidCampaign), "%v", err)
			for _, w := range tt.wanted {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	t.Run("valid", func(t *testing.T) {
		f := newFixture(t, "write a.txt alpha\n")
		f.addCase(t, "validation", "one", "", "a.txt", "alpha")
		require.NoError(t, f.campaign(t).Validate())
	})
}

func TestLoadIsStrictAndReportsEveryProblem(t *testing.T) {
	f := newFixture(t, "write a.txt alpha\n")
	f.addCase(t, "validation", "one", "", "a.txt", "alpha")
	f.write(t, "x.experiment.json", `{
  "id": "x",
  "subject": {"root": "subject", "mutable": ["AGENTS.md"], "exclud": []},
  "profiles": {"default": {"driver": {"name": "subprocess"}}},
  "Splits": {"validation": {"patterns": ["cases/validation"]}}
}`)
	_, err := Load(filepath.Join(f.dir, "x.experiment.json"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "x.experiment.json")
	assert.Contains(t, err.Error(), `Splits: unknown field (did you mean "splits"?)`)
	assert.Contains(t, err.Error(), `subject.exclud: unknown field (did you mean "exclude"?)`)
	assert.True(t, errors.Is(err, ErrInvalidCampaign))

	f.write(t, "y.experiment.json", `{
  "id": "y",
  "subject": {"root": "subject", "mutable": ["AGENTS.md"]},
  "profiles": {"default": {"driver": {"name": "subprocess", "config": {"command": "/bin/true"}}, "environment": {"image": "a"}}},
  "splits": {"validation": {"patterns": ["cases/validation"]}},
  "budget": {"maxWallTime": "90m"}
}`)
	c, err := Load(filepath.Join(f.dir, "y.experiment.json"))
	require.NoError(t, err)
	assert.Equal(t, f.dir, c.Dir)
	assert.Equal(t, lux.Duration(90*60e9), c.Budget.MaxWallTime)
}

// A constraint's confidence level follows stats.CheckLevel: the same bad
// level gives stats' own text at the field, matching stats.ErrLevel, and a
// level left out resolves to the default.
func TestConfidenceLevelIsStatsRule(t *testing.T) {
	const bad = 1.5
	_, want := stats.CheckLevel(bad)
	var se *stats.Error
	require.ErrorAs(t, want, &se)
	f := newFixture(t, "write a.txt alpha\n")
	f.addCase(t, "validation", "one", "", "a.txt", "alpha")
	c := f.campaign(t)
	c.Objectives.Constraints = []Constraint{{Metric: MetricPassRate, Min: num(0.5), Confidence: &Confidence{Level: bad}}}
	err := c.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "objectives.constraints[0].confidence.level: "+se.Message())
	assert.ErrorIs(t, err, stats.ErrLevel)
	assert.Equal(t, stats.DefaultLevel, (&Confidence{}).config().Level)
	assert.Equal(t, stats.DefaultLevel, (*Confidence)(nil).config().Level)
}
