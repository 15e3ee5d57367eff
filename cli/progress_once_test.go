package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/cli"
)

// Without -q a failure is told once: the progress line names the run and
// where its record is, the results table says why.
func TestRunTellsEachFailureOnce(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	writeCase(t, cases, "color.case.json", echoColorCase)
	code, out, errOut := run(t, reg, "run", "-runs-root", filepath.Join(dir, "runs"), "-driver", driverJSON(), cases)
	require.Equal(t, cli.ExitFailed, code)
	why := `"color.txt" does not contain "red"`
	require.Equal(t, 1, strings.Count(out+errOut, why), "stdout:\n%s\nstderr:\n%s", out, errOut)
	require.Contains(t, out, why, "the table keeps the reason")
	require.Contains(t, errOut, "[1/1] FAIL      color #1", "the progress line keeps the verdict")
}
