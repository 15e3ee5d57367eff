//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/cli"
)

// A report is a file to share: it is written readable by others (0644),
// as the umask allows, unlike the records, which stay private.
func TestReportPageIsReadableByOthers(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	writeCase(t, cases, "hello.case.json", echoHelloCase)
	root := filepath.Join(dir, "runs")
	code, out, errOut := run(t, reg, "run", "-q", "-runs-root", root, "-driver", driverJSON(), cases)
	require.Equal(t, cli.ExitOK, code, "%s\n%s", out, errOut)

	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	page := filepath.Join(dir, "page.html")
	code, _, errOut = run(t, reg, "report", "-runs-root", root, "-html", page, "latest")
	require.Equal(t, cli.ExitOK, code, errOut)
	fi, err := os.Stat(page)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), fi.Mode().Perm())

	syscall.Umask(0o077)
	code, _, errOut = run(t, reg, "report", "-runs-root", root, "-force", "-html", page, "latest")
	require.Equal(t, cli.ExitOK, code, errOut)
	fi, err = os.Stat(page)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the umask is respected")
}
