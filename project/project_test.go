package project_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/project"
)

func write(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, project.FileName), []byte(body), 0o644))
	return dir
}

func TestOptionsWithProfiles(t *testing.T) {
	t.Parallel()
	dir := write(t, `{
		"runsRoot": "records", "casesRoot": "evals",
		"defaultDriver": {"name": "claude-code"}, "defaultAnswerer": {"name": "persona"},
		"harness": {"provider": "claude-code", "model": "claude-sonnet-4-5", "timeout": "1m"},
		"environment": {"machine": "laptop"},
		"profiles": {
			"codex": {"driver": {"name": "codex"}, "harness": {"provider": "codex"}, "environment": {"machine": "ci"}, "queue": "linux-codex"},
			"bigger-judge": {"harness": {"model": "claude-opus-4-5"}}
		}
	}`)
	f, err := project.Find(dir)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "evals"), f.Resolve(f.CasesRoot))

	o, err := f.Options("")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "records"), o.RunsRoot)
	assert.Equal(t, &lux.PluginRef{Name: "claude-code"}, o.DefaultDriver)
	assert.JSONEq(t, `{"provider":"claude-code","model":"claude-sonnet-4-5","timeout":"1m0s"}`, string(o.Harness.(json.RawMessage)))
	assert.JSONEq(t, `{"machine":"laptop"}`, string(o.Environment.(json.RawMessage)))
	assert.Empty(t, o.Queue, "no profile: the executor's queue")

	o, err = f.Options("codex")
	require.NoError(t, err)
	assert.Equal(t, &lux.PluginRef{Name: "codex"}, o.DefaultDriver)
	assert.Equal(t, &lux.PluginRef{Name: "persona"}, o.DefaultAnswerer)
	assert.JSONEq(t, `{"provider":"codex","timeout":"1m0s"}`, string(o.Harness.(json.RawMessage)), "another provider drops the project's model")
	assert.JSONEq(t, `{"machine":"ci"}`, string(o.Environment.(json.RawMessage)))
	assert.Equal(t, "linux-codex", o.Queue, "the profile chooses where a distributed suite's runs go")

	o, err = f.Options("bigger-judge")
	require.NoError(t, err)
	assert.JSONEq(t, `{"provider":"claude-code","model":"claude-opus-4-5","timeout":"1m0s"}`, string(o.Harness.(json.RawMessage)))

	_, err = f.Options("nope")
	require.ErrorIs(t, err, project.ErrUnknownProfile)
	assert.Contains(t, err.Error(), "known: bigger-judge, codex")
}

func TestNoFileIsTodaysDefaults(t *testing.T) {
	t.Parallel()
	f, err := project.Find(t.TempDir())
	require.NoError(t, err)
	o, err := f.Options("")
	require.NoError(t, err)
	assert.Equal(t, "", o.RunsRoot)
	assert.Nil(t, o.Harness)
	_, err = f.Options("fast")
	assert.ErrorContains(t, err, "no lux.json was found")
}

func TestErrorsNameTheFileTheFieldAndTheFix(t *testing.T) {
	t.Parallel()
	dir := write(t, `{"runRoot": "x", "harness": {"provider": "claude-code", "effort": "huge"},
		"profiles": {"p": {"harness": {"modle": "x"}}}, "defaultDriver": {"config": {}}}`)
	_, err := project.Find(dir)
	require.ErrorIs(t, err, lux.ErrInvalidConfig)
	msg := err.Error()
	assert.Contains(t, msg, filepath.Join(dir, project.FileName))
	assert.Contains(t, msg, `runRoot: unknown field (did you mean "runsRoot"?`)

	dir = write(t, `{"harness": {"effort": "huge"}, "profiles": {"p": {"harness": {"modle": "x"}}}, "defaultDriver": {"config": {}}}`)
	_, err = project.Find(dir)
	require.ErrorIs(t, err, lux.ErrInvalidConfig)
	msg = err.Error()
	assert.Contains(t, msg, `harness.effort: unknown effort "huge"`)
	assert.Contains(t, msg, "profiles.p.harness.modle: unknown field")
	assert.Contains(t, msg, "defaultDriver.name: required")
}
