package cli_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/cli"
)

// With repetitions, the suite's text and JSON give pass@k and pass^k for
// k = the repetitions; with one run per case, neither.
func TestRunReportsPassK(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	writeCase(t, cases, "hello.case.json", echoHelloCase)
	writeCase(t, cases, "color.case.json", echoColorCase)
	root := filepath.Join(dir, "runs")

	code, out, errOut := run(t, reg, "run", "-q", "-repeat", "2", "-runs-root", root, "-driver", driverJSON(), cases)
	require.Equal(t, cli.ExitFailed, code, errOut)
	require.Contains(t, out, "pass@2 50.0%, pass^2 50.0% (mean over 2 cases")

	code, out, errOut = run(t, reg, "view", "-json", "-runs-root", root, "latest")
	require.Equal(t, cli.ExitOK, code, errOut)
	var doc struct {
		PassK *struct {
			K        int     `json:"k"`
			PassAtK  float64 `json:"passAtK"`
			PassHatK float64 `json:"passHatK"`
			Cases    int     `json:"cases"`
		} `json:"passK"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.NotNil(t, doc.PassK, out)
	require.Equal(t, 2, doc.PassK.K)
	require.Equal(t, 2, doc.PassK.Cases)
	require.InDelta(t, 0.5, doc.PassK.PassAtK, 1e-9)

	code, out, _ = run(t, reg, "run", "-q", "-runs-root", root, "-driver", driverJSON(), cases)
	require.Equal(t, cli.ExitFailed, code)
	require.NotContains(t, out, "pass@")
}
