package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/record"
)

// decodeJSON requires out to be one JSON document of the given schema.
func decodeJSON(t *testing.T, out, schema string) map[string]any {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	require.Equal(t, schema, doc["schema"], out)
	return doc
}

func TestJSONOutput(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	writeCase(t, cases, "hello.case.json", echoHelloCase)
	root := filepath.Join(dir, "runs")

	code, out, errOut := run(t, reg, "run", "-json", "-runs-root", root, "-driver", driverJSON(), cases)
	require.Equal(t, 0, code, errOut)
	doc := decodeJSON(t, out, "lux.suite/v1")
	require.Len(t, doc["runs"], 1)
	require.Contains(t, errOut, "[1/1]", "progress still goes to stderr")

	code, out, _ = run(t, reg, "validate", "-json", "-driver", driverJSON(), cases)
	require.Equal(t, 0, code)
	doc = decodeJSON(t, out, "lux.validate/v1")
	require.EqualValues(t, 0, doc["invalid"])

	code, out, _ = run(t, reg, "doctor", "-json", "-runs-root", root, "-driver", driverJSON(), cases)
	require.Equal(t, 0, code, out)
	doc = decodeJSON(t, out, "lux.doctor/v1")
	require.Equal(t, true, doc["healthy"])

	code, out, _ = run(t, reg, "view", "-json", "-runs-root", root)
	require.Equal(t, 0, code)
	doc = decodeJSON(t, out, "lux.records/v1")
	require.Len(t, doc["suites"], 1)
	require.Len(t, doc["runs"], 1)

	runs, err := record.FindRuns(root)
	require.NoError(t, err)
	code, out, _ = run(t, reg, "view", "-json", runs[0])
	require.Equal(t, 0, code)
	doc = decodeJSON(t, out, "lux.run-record/v1")
	require.NotEmpty(t, doc["events"])

	suites, err := record.FindSuites(root)
	require.NoError(t, err)
	code, out, _ = run(t, reg, "view", "-json", suites[0])
	require.Equal(t, 0, code)
	decodeJSON(t, out, "lux.suite/v1")
}

// The report `lux run -json` prints, from the records as the run wrote
// them, is the one `lux view -json` prints of the suite read back.
func TestRunReportIsTheRecordsReadBack(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	writeCase(t, cases, "hello.case.json", echoHelloCase)
	writeCase(t, cases, "other.case.json", strings.Replace(echoHelloCase, `"text": "hi"`, `"text": "nope"`, 1))
	root := filepath.Join(dir, "runs")

	code, ran, errOut := run(t, reg, "run", "-json", "-j", "2", "-repeat", "2", "-runs-root", root, "-driver", driverJSON(), cases)
	require.Equal(t, 1, code, errOut) // the other case fails
	suites, err := record.FindSuites(root)
	require.NoError(t, err)
	require.Len(t, suites, 1)
	code, viewed, errOut := run(t, reg, "view", "-json", suites[0])
	require.Equal(t, 0, code, errOut)
	runDoc, viewDoc := decodeJSON(t, ran, "lux.suite/v1"), decodeJSON(t, viewed, "lux.suite/v1")
	require.Len(t, runDoc["runs"], 4)
	require.Empty(t, cmp.Diff(viewDoc, runDoc))
}
