package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/cli"
)

// A runs root that cannot hold records is a setup error (exit status 2),
// not a failed case (1), and the message says what is wrong with it.
func TestRunWithAnUnusableRunsRootExitsTwo(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	writeCase(t, cases, "hello.case.json", `{"prompt": "write hello.txt", "driver": `+driverJSON()+`}`)
	file := filepath.Join(dir, "a-file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	for _, tc := range []struct{ name, root, want string }{
		{"a file", file, file + ": not a directory"},
		{"under a file", filepath.Join(file, "runs"), filepath.Join(file, "runs") + ": not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, reg, "run", "-q", "-runs-root", tc.root, cases)
			assert.Equal(t, cli.ExitUsage, code, stderr)
			assert.Contains(t, stderr, "runs root")
			assert.Contains(t, stderr, tc.want)
		})
	}
}

// A *.case.json that is a symlink is not followed when a directory is
// searched, and validate says so instead of skipping it silently.
func TestSymlinkedCaseFileIsReported(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	real := writeCase(t, filepath.Join(dir, "elsewhere"), "real.case.json", `{"prompt": "p", "driver": `+driverJSON()+`}`)
	cases := filepath.Join(dir, "cases")
	writeCase(t, cases, "plain.case.json", `{"prompt": "p", "driver": `+driverJSON()+`}`)
	require.NoError(t, os.Symlink(real, filepath.Join(cases, "linked.case.json")))
	code, _, stderr := run(t, reg, "validate", cases)
	assert.Equal(t, cli.ExitUsage, code, stderr)
	assert.Contains(t, stderr, "linked.case.json: a symlink, not followed when searching a directory")

	code, _, stderr = run(t, reg, "validate", filepath.Join(cases, "linked.case.json"))
	assert.Equal(t, cli.ExitOK, code, "named on the command line, it is read: %s", stderr)
}
