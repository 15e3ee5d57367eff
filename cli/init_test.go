package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/cli"
)

// initJSON runs lux init -json with args and decodes its report.
func initJSON(t *testing.T, want int, args ...string) cli.InitReport {
	t.Helper()
	code, out, errOut := run(t, registry(t), append([]string{"init", "-json"}, args...)...)
	require.Equal(t, want, code, "%s\n%s", out, errOut)
	var rep cli.InitReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Equal(t, "lux.init/v1", rep.Schema)
	return rep
}

func actions(rep cli.InitReport) map[string]string {
	m := map[string]string{}
	for _, e := range rep.Entries {
		m[e.Path] = e.Action
	}
	return m
}

// A fresh directory: lux init, then lux run passes against the scaffolded
// agent; init again skips everything and changes nothing.
func TestInitThenRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "proj")
	reg := registry(t)
	code, out, errOut := run(t, reg, "init", dir)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	for _, p := range []string{"lux.json", "agent/agent.sh", "cases/hello.case.json", "fixtures/notes/README.md", ".gitignore"} {
		assert.Contains(t, out, "created  "+p+"\n")
	}
	assert.Contains(t, out, "lux run")
	gi, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	require.NoError(t, err)
	assert.Equal(t, ".lux-runs/\n", string(gi))

	t.Chdir(dir)
	code, out, errOut = run(t, reg, "run", "-q")
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "2 runs: 2 passed, 0 failed")

	// Edit a scaffolded file: a second init must keep it.
	edited := []byte(`{"runsRoot": "elsewhere", "casesRoot": "cases"}`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "lux.json"), edited, 0o644))
	rep := initJSON(t, 0, dir)
	assert.Zero(t, rep.Created, "%+v", rep.Entries)
	assert.Zero(t, rep.Refused)
	assert.Equal(t, len(rep.Entries), rep.Skipped)
	got, err := os.ReadFile(filepath.Join(dir, "lux.json"))
	require.NoError(t, err)
	assert.Equal(t, string(edited), string(got), "never overwritten")
	gi, err = os.ReadFile(filepath.Join(dir, ".gitignore"))
	require.NoError(t, err)
	assert.Equal(t, ".lux-runs/\n", string(gi), "the line is not added twice")
}

// An existing .gitignore gets the runs root appended once, on a line of
// its own.
func TestInitAppendsToGitignore(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("bin/\nnode_modules"), 0o644))
	rep := initJSON(t, 0, dir)
	assert.Equal(t, cli.InitAppended, actions(rep)[".gitignore"])
	rep = initJSON(t, 0, dir)
	assert.Equal(t, cli.InitSkipped, actions(rep)[".gitignore"])
	gi, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	require.NoError(t, err)
	assert.Equal(t, "bin/\nnode_modules\n.lux-runs/\n", string(gi))
}

// A scaffold path that is a symlink, or goes through one, is refused and
// named; nothing is written where it points. A target directory that is a
// symlink is refused.
func TestInitDoesNotFollowSymlinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "cases")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "lux.json"), filepath.Join(dir, "lux.json")))
	code, out, errOut := run(t, registry(t), "init", dir)
	assert.Equal(t, 1, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "refused  cases (is or goes through a symlink")
	assert.Contains(t, out, "refused  cases/hello.case.json (")
	assert.Contains(t, out, "refused  lux.json (")
	assert.Contains(t, out, "created  agent/agent.sh")
	assert.Contains(t, errOut, "refused")
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing is written through a symlink")

	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(outside, link))
	code, _, errOut = run(t, registry(t), "init", link)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, link+" is a symlink")
	entries, err = os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

// -experiment's campaign passes lux experiment -plan, and the experiment
// promotes the variant that fixes the subject.
func TestInitExperimentPlansAndPromotes(t *testing.T) {
	dir := t.TempDir()
	rep := initJSON(t, 0, "-experiment", dir)
	a := actions(rep)
	for _, p := range []string{"experiment/subject/AGENTS.md", "experiment/house-style.experiment.json",
		"experiment/cases/train/readme.case.json", "experiment/cases/validation/config.case.json", "experiment/cases/test/version.case.json"} {
		assert.Equal(t, cli.InitCreated, a[p], p)
	}
	t.Chdir(dir)
	reg := registry(t)
	campaign := filepath.FromSlash("experiment/house-style.experiment.json")
	code, out, errOut := run(t, reg, "experiment", "-plan", campaign)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "fits the budget")
	code, out, errOut = run(t, reg, "experiment", "-q", campaign)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.True(t, strings.HasPrefix(strings.TrimSpace(out), "promote tabs"), out)

	// lux run still runs only the project's own cases.
	code, out, errOut = run(t, reg, "run", "-q")
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "2 runs: 2 passed")
}

func TestInitUsage(t *testing.T) {
	code, _, errOut := run(t, registry(t), "init", "a", "b")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "at most one directory")
	file := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	code, _, errOut = run(t, registry(t), "init", file)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "is not a directory")
}
