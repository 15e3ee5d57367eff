package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/record"
)

// lux run from a subdirectory of the project uses the project's lux.json,
// found by walking up, and its records land where they land from the
// project's root; stderr names the file used.
func TestProjectFileFoundFromSubdirectory(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "lux.json"), []byte(`{"runsRoot": "records", "casesRoot": "cases"}`), 0o644))
	reg := registry(t)
	records := func(t *testing.T) []string {
		t.Helper()
		runs, err := filepath.Glob(filepath.Join(p.dir, "records", "hello", "subprocess", "*"))
		require.NoError(t, err)
		return runs
	}

	t.Chdir(p.dir)
	code, out, errOut := run(t, reg, "run", "-q")
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	require.Len(t, records(t), 1)
	assert.Contains(t, errOut, "project file "+filepath.Join(p.dir, "lux.json"))

	sub := filepath.Join(p.cases, "nested")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	t.Chdir(sub)
	code, out, errOut = run(t, reg, "run", "-q")
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Len(t, records(t), 2, "the run from a subdirectory is recorded under the project's runsRoot")
	assert.NoDirExists(t, filepath.Join(sub, "records"))
	assert.NoDirExists(t, filepath.Join(sub, ".lux-runs"))
	assert.Contains(t, errOut, "project file "+filepath.Join(p.dir, "lux.json"))

	code, out, errOut = run(t, reg, "view")
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "hello", "lux view from a subdirectory lists the project's records")
}

// ${PROJECT_DIR} in a driver's env is the directory of the lux.json found,
// and the file it names is identified in the run's provenance.
func TestProjectDirVariable(t *testing.T) {
	p := newProject(t)
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "lux.json"), []byte(`{}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "SKILL.md"), []byte("# skill"), 0o644))
	p.writeCase(t, "skill.case.json", `{
	  "prompt": "write hello.txt containing hi",
	  "driver": {"name": "subprocess", "config": {"command": "../agent/agent.sh", "env": {"SKILL_FILE": "${PROJECT_DIR}/SKILL.md"}}},
	  "assertions": [{"type": "file-contains", "id": "says-hi", "path": "hello.txt", "text": "hi"}]
	}`)
	t.Chdir(p.cases)
	code, out, errOut := run(t, registry(t), "run", "-q", ".")
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	runs, err := filepath.Glob(filepath.Join(p.dir, ".lux-runs", "skill", "subprocess", "*"))
	require.NoError(t, err)
	require.Len(t, runs, 1)
	var m record.Metadata
	require.NoError(t, record.ReadJSON(filepath.Join(runs[0], record.MetadataFile), &m))
	require.Len(t, m.Provenance.Runtime.Scripts, 1)
	assert.Equal(t, filepath.Join(p.dir, "SKILL.md"), m.Provenance.Runtime.Scripts[0].Path)
}
