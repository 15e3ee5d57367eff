package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/cli"
	"github.com/luxeval/lux/record"
)

// `lux run -label NAME` labels the suite; compare, report and view take
// "latest" and "label:NAME" where they take a suite directory.
func TestSuiteLabelsAndRefs(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	writeCase(t, cases, "hello.case.json", echoHelloCase)
	root := filepath.Join(dir, "runs")

	code, out, errOut := run(t, reg, "run", "-q", "-label", "main", "-runs-root", root, "-driver", driverJSON(), cases)
	require.Equal(t, cli.ExitOK, code, "%s\n%s", out, errOut)
	code, out, errOut = run(t, reg, "run", "-q", "-label", "pr", "-runs-root", root, "-driver", driverJSON(), cases)
	require.Equal(t, cli.ExitOK, code, "%s\n%s", out, errOut)
	suites, err := record.FindSuites(root)
	require.NoError(t, err)
	require.Len(t, suites, 2)
	s, err := record.ReadSuite(suites[0])
	require.NoError(t, err)
	require.Equal(t, "main", s.Manifest.Label)

	code, out, errOut = run(t, reg, "compare", "-runs-root", root, "label:main", "latest")
	require.Equal(t, cli.ExitOK, code, "%s\n%s", out, errOut)
	require.Contains(t, out, "A: "+suites[0])
	require.Contains(t, out, "B: "+suites[1])

	code, out, errOut = run(t, reg, "compare", "-runs-root", root, "label:main", "label:nightly")
	require.Equal(t, cli.ExitUsage, code, out)
	require.Contains(t, errOut, `no suite labelled "nightly" under `+filepath.Join(root, record.SuitesDir))

	code, out, errOut = run(t, reg, "view", "-runs-root", root, "label:main")
	require.Equal(t, cli.ExitOK, code, errOut)
	require.Contains(t, out, suites[0])
	require.Contains(t, out, "label: main")

	page := filepath.Join(dir, "page.html")
	code, out, errOut = run(t, reg, "report", "-runs-root", root, "-html", page, "label:main", "label:pr")
	require.Equal(t, cli.ExitOK, code, "%s\n%s", out, errOut)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	require.True(t, strings.Contains(string(html), filepath.Base(suites[1])), "the page is the comparison of the two suites")
}

// -resume names a suite too: latest and label:NAME work there.
func TestResumeTakesSuiteRefs(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	writeCase(t, cases, "hello.case.json", echoHelloCase)
	root := filepath.Join(dir, "runs")
	code, out, errOut := run(t, reg, "run", "-q", "-label", "main", "-runs-root", root, "-driver", driverJSON(), cases)
	require.Equal(t, cli.ExitOK, code, "%s\n%s", out, errOut)

	code, _, errOut = run(t, reg, "run", "-runs-root", root, "-resume", "label:main")
	require.Equal(t, cli.ExitOK, code, errOut)
	require.Contains(t, errOut, "nothing left to run")
	code, _, errOut = run(t, reg, "run", "-runs-root", root, "-resume", "label:nightly")
	require.Equal(t, cli.ExitUsage, code)
	require.Contains(t, errOut, `no suite labelled "nightly"`)
}
