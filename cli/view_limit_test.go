package cli_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/cli"
)

// A listing cut at -n says so, and how to see more.
func TestViewSaysWhenTheListingIsCut(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	writeCase(t, cases, "hello.case.json", echoHelloCase)
	root := filepath.Join(dir, "runs")
	for range 3 {
		code, out, errOut := run(t, reg, "run", "-q", "-label", "nightly", "-runs-root", root, "-driver", driverJSON(), cases)
		require.Equal(t, cli.ExitOK, code, "%s\n%s", out, errOut)
	}
	code, out, _ := run(t, reg, "view", "-runs-root", root, "-n", "2")
	require.Equal(t, cli.ExitOK, code)
	require.Contains(t, out, "the latest 2 of 3 suites; -n 0 lists them all")
	require.Contains(t, out, "the latest 2 of 3 runs; -n 0 lists them all")
	require.Contains(t, out, "nightly", "the suites' labels are listed")

	code, out, _ = run(t, reg, "view", "-runs-root", root)
	require.Equal(t, cli.ExitOK, code)
	require.NotContains(t, out, "the latest")
}
