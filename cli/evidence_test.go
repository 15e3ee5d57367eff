package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/cli"
	"github.com/luxeval/lux/record"
)

// runOneCase runs the case body once under a fresh runs root and returns
// the exit status, the output and the run directory.
func runOneCase(t *testing.T, body string) (int, string, string) {
	t.Helper()
	reg := registry(t)
	dir := t.TempDir()
	path := writeCase(t, dir, "c.case.json", body)
	root := filepath.Join(dir, "runs")
	code, out, errOut := run(t, reg, "run", "-q", "-runs-root", root, "-driver", driverJSON(), path)
	runs, err := record.FindRuns(root)
	require.NoError(t, err)
	require.Len(t, runs, 1, "%s\n%s", out, errOut)
	return code, out + errOut, runs[0]
}

// Grading never writes into the evidence: a command assertion runs on a
// disposable copy of the workspace, so a file it creates is not seen by the
// next assertion, in either order, live or when graded again.
func TestCommandAssertionsCannotCreateEvidence(t *testing.T) {
	for name, assertions := range map[string]string{
		"command first": `[{"type":"command-exits-zero","command":"echo hi > graded.txt"},{"type":"file-exists","path":"graded.txt"}]`,
		"command last":  `[{"type":"file-exists","path":"graded.txt"},{"type":"command-exits-zero","command":"echo hi > graded.txt"}]`,
	} {
		t.Run(name, func(t *testing.T) {
			code, out, dir := runOneCase(t, `{"prompt":"write hello.txt containing \"hi\"","assertions":`+assertions+`}`)
			assert.Equal(t, cli.ExitFailed, code, out)
			assert.Contains(t, out, "graded.txt")
			assert.NoFileExists(t, filepath.Join(dir, record.ArtifactsDir, "graded.txt"))

			code, out, errOut := run(t, registry(t), "grade", dir)
			assert.Equal(t, cli.ExitFailed, code, "%s\n%s", out, errOut)
			assert.Contains(t, out, "grading: FAIL")
			assert.NoFileExists(t, filepath.Join(dir, record.ArtifactsDir, "graded.txt"))
		})
	}
}

// A command that edits the workspace passes live and again later: what it
// changed was a copy.
func TestCommandAssertionsCannotChangeEvidence(t *testing.T) {
	code, out, dir := runOneCase(t, `{"prompt":"write hello.txt containing \"hi\"","assertions":[
	  {"type":"command-exits-zero","command":"echo '// x' >> hello.txt && mkdir -p .cache && echo c > .cache/x"},
	  {"type":"file-contains","path":"hello.txt","text":"hi"}]}`)
	require.Equal(t, cli.ExitOK, code, out)
	b, err := os.ReadFile(filepath.Join(dir, record.ArtifactsDir, "hello.txt"))
	require.NoError(t, err)
	assert.Equal(t, "hi", string(b))
	assert.NoDirExists(t, filepath.Join(dir, record.ArtifactsDir, ".cache"))

	code, out, errOut := run(t, registry(t), "grade", dir)
	assert.Equal(t, cli.ExitOK, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "grading: PASS")
}

// Assertions that name the same shareCopy share one copy, in order.
func TestCommandAssertionsShareACopy(t *testing.T) {
	code, out, _ := runOneCase(t, `{"prompt":"write hello.txt containing \"hi\"","assertions":[
	  {"type":"command-exits-zero","command":"echo built > bin.txt","shareCopy":"build"},
	  {"type":"command-exits-zero","command":"test -f bin.txt","shareCopy":"build"},
	  {"type":"command-exits-zero","command":"test ! -f bin.txt"}]}`)
	assert.Equal(t, cli.ExitOK, code, out)
}

// A file added to the recorded workspace after the run, anywhere (even
// where artifact collection does not look), is noticed by lux grade.
func TestGradeNoticesAddedFiles(t *testing.T) {
	for _, added := range []string{"graded.txt", ".hidden/x", "node_modules/m/index.js"} {
		t.Run(added, func(t *testing.T) {
			code, out, dir := runOneCase(t, `{"prompt":"write hello.txt containing \"hi\"","assertions":[{"type":"file-exists","path":"hello.txt"}]}`)
			require.Equal(t, cli.ExitOK, code, out)
			p := filepath.Join(dir, record.ArtifactsDir, filepath.FromSlash(added))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
			require.NoError(t, os.WriteFile(p, []byte("x"), 0o600))
			code, out, errOut := run(t, registry(t), "grade", dir)
			assert.Equal(t, cli.ExitUsage, code, out)
			assert.Contains(t, errOut, "the run's evidence changed since it was recorded")
			assert.Contains(t, errOut, "artifacts")
		})
	}
}

// A file removed from the recorded workspace is noticed too.
func TestGradeNoticesRemovedFiles(t *testing.T) {
	code, out, dir := runOneCase(t, `{"prompt":"write hello.txt containing \"hi\"","assertions":[{"type":"file-exists","path":"hello.txt"}]}`)
	require.Equal(t, cli.ExitOK, code, out)
	require.NoError(t, os.Remove(filepath.Join(dir, record.ArtifactsDir, "hello.txt")))
	code, _, errOut := run(t, registry(t), "grade", dir)
	assert.Equal(t, cli.ExitUsage, code)
	assert.Contains(t, errOut, "hello.txt")
}
