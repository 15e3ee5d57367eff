package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
}
