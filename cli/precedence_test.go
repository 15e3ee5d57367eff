package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/record"
)

// newAgent writes what it saw of the two env variables to hello.txt (not
// "hi": the case's assertion fails) and ends done.
const newAgent = `#!/bin/sh
echo '{"type":"ready","agentId":"new-agent"}'
echo "new case=$FROM_CASE flag=$FROM_FLAG" > "$LUX_ARTIFACTS_DIR/hello.txt"
echo '{"type":"done"}'
`

// onlyRun returns the directory of the one run recorded under runs for
// the case id.
func onlyRun(t *testing.T, runs, id string) string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(runs, id, "subprocess", "*"))
	require.NoError(t, err)
	require.Len(t, dirs, 1)
	return dirs[0]
}

// recordedCommand is the path of the first command of run.json's runtime,
// and what chose the driver.
func recordedCommand(t *testing.T, runDir string) (path, chosenBy string) {
	t.Helper()
	var m struct {
		Provenance struct {
			DriverChosenBy string `json:"driverChosenBy"`
			Runtime        struct {
				Commands []struct {
					Path   string `json:"path"`
					SHA256 string `json:"sha256"`
				} `json:"commands"`
			} `json:"runtime"`
		} `json:"provenance"`
	}
	require.NoError(t, record.ReadJSON(filepath.Join(runDir, record.MetadataFile), &m))
	require.NotEmpty(t, m.Provenance.Runtime.Commands)
	return m.Provenance.Runtime.Commands[0].Path, m.Provenance.DriverChosenBy
}

// -driver chooses the driver of every case, the case's own included: the
// case that names its old agent runs the new one, with the flag's config
// alone (the case's env is not merged in), lux says so, and the run
// records the new agent.
func TestDriverFlagReplacesTheCasesOwnDriver(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "hello.case.json", `{
	  "prompt": "write hello.txt containing hi",
	  "driver": {"name": "subprocess", "config": {"command": "../agent/agent.sh", "env": {"FROM_CASE": "case"}}},
	  "assertions": [{"type": "file-contains", "id": "says-hi", "path": "hello.txt", "text": "hi"}]
	}`)
	agent := p.writeAgent(t, "bin/new-agent", newAgent)
	t.Chdir(p.dir)
	flag := `{"name":"subprocess","config":{"command":"bin/new-agent","env":{"FROM_FLAG":"flag"}}}`

	code, out, errOut := run(t, registry(t), "run", "-q", "-runs-root", p.runs, "-driver", flag, p.cases)
	require.Equal(t, 1, code, "the new agent ran, and its hello.txt does not say hi:\n%s\n%s", out, errOut)
	assert.Contains(t, errOut, "hello: runs "+agent+" (-driver), not the case's own ../agent/agent.sh")

	dir := onlyRun(t, p.runs, "hello")
	got, err := os.ReadFile(filepath.Join(dir, "artifacts", "hello.txt"))
	require.NoError(t, err)
	assert.Equal(t, "new case= flag=flag\n", string(got), "the flag's config alone")
	path, chosenBy := recordedCommand(t, dir)
	assert.Equal(t, agent, path)
	assert.Equal(t, "override", chosenBy, "run.json says the case's own driver was replaced")
}

// -driver and a -profile that names a driver both choose the driver: lux
// refuses to pick one, naming both.
func TestDriverFlagAndProfileDriverConflict(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "lux.json"), []byte(`{
	  "profiles": {"ci": {"driver": {"name": "subprocess", "config": {"command": "agent/agent.sh"}}}}
	}`), 0o644))
	t.Chdir(p.dir)
	code, _, errOut := run(t, registry(t), "run", "-q", "-profile", "ci", "-driver", driverJSON(), "cases")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "-driver")
	assert.Contains(t, errOut, "profiles.ci.driver")
	_, err := os.Stat(filepath.Join(p.dir, ".lux-runs", "hello"))
	assert.True(t, os.IsNotExist(err), "nothing ran")
}

// lux run -plan lists each case's driver and command, and where they come
// from, and runs nothing.
func TestRunPlanListsEachCasesCommand(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)
	p.writeCase(t, "other.case.json", strings.Replace(helloCase, `"prompt"`, `"id": "other", "prompt"`, 1))
	agent := p.writeAgent(t, "bin/new-agent", newAgent)
	t.Chdir(p.dir)
	code, out, errOut := run(t, registry(t), "run", "-plan", "-runs-root", p.runs, "cases")
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, fmt.Sprintf("hello  subprocess  %s  (the case)", filepath.Join(p.dir, "agent", "agent.sh")))

	code, out, errOut = run(t, registry(t), "run", "-plan", "-runs-root", p.runs, "-driver", `{"name":"subprocess","config":{"command":"bin/new-agent"}}`, "cases")
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, fmt.Sprintf("hello  subprocess  %s  (-driver; the case's own: ../agent/agent.sh)", agent))
	_, err := os.Stat(p.runs)
	assert.True(t, os.IsNotExist(err), "-plan runs nothing")
}

// validate and doctor read lux.json as run does: a case that names no
// driver takes the project's defaultDriver in each.
func TestValidateAndDoctorUseTheProjectDefaults(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "bare.case.json", `{"prompt": "write hello.txt containing hi",
	  "assertions": [{"type": "file-contains", "path": "hello.txt", "text": "hi"}]}`)
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "lux.json"), []byte(`{
	  "defaultDriver": {"name": "subprocess", "config": {"command": "agent/agent.sh"}}
	}`), 0o644))
	t.Chdir(p.dir)
	for _, cmd := range []string{"validate", "doctor", "run"} {
		code, out, errOut := run(t, registry(t), cmd, "cases")
		assert.Equal(t, 0, code, "lux %s:\n%s\n%s", cmd, out, errOut)
	}
}

// -answerer replaces the case's own answerer, and lux says so.
func TestAnswererFlagReplacementIsSaid(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "hello.case.json", strings.Replace(helloCase, `"assertions"`,
		`"answerer": {"name": "scripted", "config": {"rules": [{"match": "x", "answer": "y"}]}}, "assertions"`, 1))
	t.Chdir(p.dir)
	code, out, errOut := run(t, registry(t), "run", "-q", "-answerer", `{"name":"scripted","config":{"rules":[{"match":"z","answer":"w"}]}}`, "cases")
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, errOut, "lux: hello: answered by scripted (-answerer), not the case's own scripted")
}

func TestRunPlanJSON(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)
	p.writeAgent(t, "bin/new-agent", newAgent)
	t.Chdir(p.dir)
	code, out, errOut := run(t, registry(t), "run", "-plan", "-json", "-driver", `{"name":"subprocess","config":{"command":"bin/new-agent"}}`, "cases")
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	doc := decodeJSON(t, out, "lux.run-plan/v1")
	cases := doc["cases"].([]any)
	require.Len(t, cases, 1)
	c := cases[0].(map[string]any)
	assert.Equal(t, "override", c["source"])
	assert.Equal(t, "-driver", c["by"])
	assert.Equal(t, true, c["differs"])
	assert.Equal(t, []any{"../agent/agent.sh"}, c["own"])
}
