package experiment

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/project"
)

// A campaign profile that names a profile of lux.json takes its driver,
// answerer and environment from it; what the campaign sets itself wins, and
// a name the file lacks, a missing file or a harness it cannot apply are
// each named at profiles.NAME.project.
func TestCampaignProfilesNameProjectProfiles(t *testing.T) {
	f := newFixture(t, "write a.txt alpha\n")
	f.addCase(t, "validation", "one", "", "a.txt", "alpha")
	f.write(t, project.FileName, `{
  "defaultAnswerer": {"name": "scripted"},
  "environment": {"host": "ci"},
  "profiles": {
    "fast": {"driver": {"name": "subprocess", "config": {"command": "/bin/true"}}, "queue": "linux-fast"},
    "judged": {"driver": {"name": "subprocess", "config": {"command": "/bin/true"}}, "harness": {"provider": "codex"}}
  }
}`)
	proj, err := project.Load(filepath.Join(f.dir, project.FileName))
	require.NoError(t, err)
	campaign := func(profiles string) string {
		name := "c.experiment.json"
		f.write(t, name, `{"id": "c", "subject": {"root": "subject", "mutable": ["AGENTS.md"]},
  "profiles": `+profiles+`, "splits": {"validation": {"patterns": ["cases/validation"]}}}`)
		return filepath.Join(f.dir, name)
	}

	c, err := LoadWithProject(campaign(`{"a": {"project": "fast"}, "b": {"project": "fast", "environment": {"host": "laptop"}}}`), proj)
	require.NoError(t, err)
	a, b := c.Profiles["a"], c.Profiles["b"]
	require.NotNil(t, a.Driver)
	assert.Equal(t, "subprocess", a.Driver.Name)
	require.NotNil(t, a.Answerer)
	assert.Equal(t, "scripted", a.Answerer.Name, "the file's default answerer")
	assert.JSONEq(t, `{"host": "ci"}`, string(a.Environment), "the file's environment")
	assert.JSONEq(t, `{"host": "laptop"}`, string(b.Environment), "the campaign's own wins")
	assert.Equal(t, "linux-fast", a.Queue, "the project profile's queue")

	_, err = LoadWithProject(campaign(`{"a": {"project": "slow"}, "b": {"project": "judged"}}`), proj)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `profiles.a.project: `+proj.Path+` has no profile "slow" (declared: fast, judged)`)
	assert.Contains(t, err.Error(), `profiles.b.project: the project profile "judged" sets a harness model`)

	_, err = Load(campaign(`{"a": {"project": "fast"}}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `profiles.a.project: names the project profile "fast", but no lux.json was found`)
}
