package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/record"
)

// lux.json in the working directory sets the runs root, the cases and the
// environment; -profile changes the environment; lux grade writes a second
// grading beside the first.
func TestProjectFileProfilesAndGrade(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "lux.json"), []byte(`{
	  "runsRoot": "records", "casesRoot": "cases",
	  "environment": {"machine": "laptop"},
	  "profiles": {"ci": {"environment": {"machine": "ci-runner"}}}
	}`), 0o644))
	t.Chdir(p.dir)
	reg := registry(t)

	code, out, errOut := run(t, reg, "run", "-q", "-profile", "ci")
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	runs, err := filepath.Glob(filepath.Join(p.dir, "records", "hello", "subprocess", "*"))
	require.NoError(t, err)
	require.Len(t, runs, 1, "records go to the project's runsRoot")
	var m struct {
		Provenance struct {
			Environment map[string]string `json:"environment"`
		} `json:"provenance"`
	}
	require.NoError(t, record.ReadJSON(filepath.Join(runs[0], record.MetadataFile), &m))
	assert.Equal(t, "ci-runner", m.Provenance.Environment["machine"], "the profile's environment wins")

	code, _, errOut = run(t, reg, "run", "-q", "-profile", "nightly")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `unknown profile "nightly"`)
	assert.Contains(t, errOut, "known: ci")

	code, out, errOut = run(t, reg, "grade", runs[0])
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "grading: PASS, score 100%")
	assert.Contains(t, out, "ok   says-hi")
	gs, err := record.ReadRegradings(runs[0])
	require.NoError(t, err)
	require.Len(t, gs, 1)

	code, out, _ = run(t, reg, "grade", "-json", runs[0])
	require.Equal(t, 0, code)
	doc := decodeJSON(t, out, "lux.grade/v1")
	assert.Equal(t, "pass", doc["verdict"])
	gs, err = record.ReadRegradings(runs[0])
	require.NoError(t, err)
	assert.Len(t, gs, 2, "each grade adds a grading, never replacing one")

	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "bad.json"), []byte(`{"runRoot": "x"}`), 0o644))
	code, _, errOut = run(t, reg, "run", "-config", "bad.json")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `bad.json: lux: invalid config:`)
	assert.Contains(t, errOut, `runRoot: unknown field (did you mean "runsRoot"?`)
}
