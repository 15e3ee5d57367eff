package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/cli"
)

// The run table and the progress lines name each failed assertion with
// why, show duration and agent tokens, and print run paths that work from
// the working directory.
func TestRunTableNamesFailuresAndUsablePaths(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)
	p.writeCase(t, "shout.case.json", `{
	  "prompt": "write HELLO.txt",
	  "driver": {"name": "subprocess", "config": {"command": "../agent/agent.sh"}},
	  "assertions": [
	    {"type": "file-contains", "id": "says-hi", "path": "hello.txt", "text": "hi"},
	    {"type": "file-exists", "id": "shouts", "path": "HELLO.txt"}
	  ]
	}`)
	t.Chdir(p.dir)
	code, out, errOut := run(t, registry(t), "run", "cases")
	require.Equal(t, cli.ExitFailed, code, "%s\n%s", out, errOut)

	require.Regexp(t, `hello\s+1\s+pass\s+1\.00\s+done\s+\S+s\s+150\s+\.lux-runs/hello/`, out)
	require.Regexp(t, `shout\s+1\s+FAIL\s+0\.50\s+done\s+\S+s\s+150\s+\.lux-runs/shout/`, out)
	require.Contains(t, out, "shout #1: FAIL\n  ✗ shouts: ")
	require.Contains(t, out, "2 runs: 1 passed, 1 failed (pass rate 50.0% of 2 graded)")
	require.Regexp(t, `took \S+s; agent tokens: 300\n`, out)
	rows := regexp.MustCompile(`(?m)^\S+\s+\d+\s.*\s(\.lux-runs/\S+)$`).FindAllStringSubmatch(out, -1)
	require.Len(t, rows, 2, out)
	for _, m := range rows {
		_, err := os.Stat(filepath.Join(m[1], "run.json"))
		require.NoError(t, err, "the printed path %s works from the working directory", m[1])
	}
	records := regexp.MustCompile(`records: (\S+)`).FindStringSubmatch(out)
	require.NotNil(t, records, out)
	_, err := os.Stat(filepath.Join(records[1], "suite.json"))
	require.NoError(t, err)

	require.Regexp(t, `\[\d/2\] FAIL\s+shout #1 \(\S+s, 150 tokens\) \.lux-runs/shout/\S+\n`, errOut)
	require.NotContains(t, errOut, "✗ shouts: ", "why it failed is told once, in the table")
	require.Regexp(t, `\[\d/2\] pass\s+hello #1 \(\S+s, 150 tokens\)\n`, errOut)
}

// A run the harness could not grade (an assertion that errors, a driver
// that cannot start) is an error, not a fail, and stays out of the pass
// rate.
func TestHarnessFailuresAreErrorsNotFails(t *testing.T) {
	p := newProject(t)
	reg := withVerdicts(t, p)
	p.writeCase(t, "d-cannot-start.case.json", `{
	  "prompt": "p",
	  "driver": {"name": "subprocess", "config": {"command": "../agent/agent.sh", "cwd": "no-such-dir"}},
	  "assertions": [{"type": "file-exists", "path": "hello.txt"}]
	}`)
	code, out, errOut := run(t, reg, "run", "-runs-root", p.runs, p.cases)
	require.Equal(t, cli.ExitFailed, code, "%s\n%s", out, errOut)
	require.Regexp(t, `a-pass\s+1\s+pass\s`, out)
	require.Regexp(t, `b-fail\s+1\s+FAIL\s`, out)
	require.Regexp(t, `c-cannot-grade\s+1\s+ERROR\s`, out)
	require.Regexp(t, `d-cannot-start\s+1\s+ERROR\s`, out)
	require.Contains(t, out, "c-cannot-grade #1: ERROR\n  ! review: could not grade: ")
	require.Contains(t, out, "the review service did not answer")
	require.Contains(t, out, "d-cannot-start #1: ERROR\n  driver \"subprocess\" failed to start")
	require.Contains(t, out, "4 runs: 1 passed, 1 failed, 2 errors (pass rate 50.0% of 2 graded)")

	_, view, _ := run(t, reg, "view", "-runs-root", p.runs, "d-cannot-start")
	require.Contains(t, view, "verdict:     ERROR\n")
	_, list, _ := run(t, reg, "view", "-runs-root", p.runs)
	require.Regexp(t, `c-cannot-grade\s+ERROR\s`, list)

	code, out, _ = run(t, reg, "run", "-json", "-q", "-runs-root", p.runs, p.cases)
	require.Equal(t, cli.ExitFailed, code)
	doc := decodeJSON(t, out, "lux.suite/v1")
	totals := doc["totals"].(map[string]any)
	assert.EqualValues(t, 2, totals["errored"])
	assert.EqualValues(t, 2, totals["graded"])
	assert.EqualValues(t, 0.5, totals["passRate"])
	verdicts := []string{}
	for _, r := range doc["runs"].([]any) {
		verdicts = append(verdicts, r.(map[string]any)["verdict"].(string))
	}
	assert.Equal(t, []string{"pass", "fail", "error", "error"}, verdicts)
}

// run checks, before anything starts, that the cases' commands are there.
func TestRunRefusesASuiteWhoseCommandsAreMissing(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)
	p.writeCase(t, "other.case.json", `{
	  "prompt": "p",
	  "driver": {"name": "subprocess", "config": {"command": "../agent/not-written-yet.sh"}},
	  "assertions": [{"type": "file-exists", "path": "x"}]
	}`)
	code, out, errOut := run(t, registry(t), "run", "-runs-root", p.runs, p.cases)
	require.Equal(t, cli.ExitUsage, code, "%s\n%s", out, errOut)
	require.Empty(t, out)
	require.Contains(t, errOut, "../agent/not-written-yet.sh")
	require.Contains(t, errOut, "nothing was run")
	_, err := os.Stat(filepath.Join(p.runs, ".suites"))
	require.True(t, os.IsNotExist(err), "no suite was started")
}

// blockingAgent, while the file $BLOCK exists, tells the test it has
// started by writing to the fifo $STARTED, then waits for answers that
// never come; otherwise it writes hello.txt and finishes.
const blockingAgent = `#!/bin/sh
echo '{"type":"ready","agentId":"blocking-agent"}'
if [ -e "$BLOCK" ]; then
  echo started > "$STARTED"
  cat
fi
echo hi > "$LUX_ARTIFACTS_DIR/hello.txt"
echo '{"type":"done"}'
`

// After an interruption, the run in flight is cancelled, the runs that
// never started are "not run", and no pass rate is made of them; -resume
// then runs only those.
func TestInterruptedSuiteCountsCancelledAndNotRunThenResumes(t *testing.T) {
	p := newProject(t)
	p.writeAgent(t, "agent/block.sh", blockingAgent)
	fifo, block := filepath.Join(p.dir, "started"), filepath.Join(p.dir, "block")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	require.NoError(t, os.WriteFile(block, nil, 0o600))
	p.writeCase(t, "a-block.case.json", `{
	  "prompt": "p",
	  "driver": {"name": "subprocess", "config": {"command": "../agent/block.sh", "env": {"STARTED": "`+fifo+`", "BLOCK": "`+block+`"}}},
	  "assertions": [{"type": "file-contains", "path": "hello.txt", "text": "hi"}]
	}`)
	p.writeCase(t, "b-hello.case.json", helloCase)
	p.writeCase(t, "c-hello.case.json", helloCase)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		f, err := os.Open(fifo) // returns once the agent opens it to write
		if err == nil {
			buf := make([]byte, 16)
			_, _ = f.Read(buf)
			f.Close()
		}
		cancel()
	}()
	var stdout, stderr strings.Builder
	code := cli.Main(ctx, registry(t), []string{"run", "-runs-root", p.runs,
		"-sandbox", "limits", // the agent opens a fifo in the project
		p.cases}, &stdout, &stderr)
	out := stdout.String()
	require.Equal(t, cli.ExitInterrupted, code, "%s\n%s", out, stderr.String())
	require.Regexp(t, `a-block\s+1\s+cancelled\s`, out)
	require.Regexp(t, `b-hello\s+1\s+not run\s`, out)
	require.Regexp(t, `c-hello\s+1\s+not run\s`, out)
	require.Contains(t, out, "3 runs: 0 passed, 0 failed, 1 cancelled, 2 not run (no graded runs, no pass rate)")

	suite := regexp.MustCompile(`records: (\S+)`).FindStringSubmatch(out)[1]
	require.Contains(t, stderr.String(), "lux run -resume "+suite, "an interruption says how to finish the suite")
	require.NoError(t, os.Remove(block))
	t.Chdir(t.TempDir()) // the suite knows its case files and its runs root
	code, out, errOut := run(t, registry(t), "run", "-resume", suite)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	require.Contains(t, out, "3 runs: 3 passed, 0 failed (pass rate 100.0% of 3 graded)")
	require.Equal(t, 3, strings.Count(errOut, "pass "), "the three missing runs ran:\n%s", errOut)
	require.Contains(t, out, "records: "+suite)

	code, _, errOut = run(t, registry(t), "run", "-resume", suite)
	require.Equal(t, 0, code)
	require.Contains(t, errOut, "nothing left to run")
}

// The command line's messages name its flags, not the library's options.
func TestMessagesSpeakTheCommandLine(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "hello.case.json", `{"prompt": "p", "assertions": [{"type": "file-exists", "path": "x"}]}`)
	code, out, _ := run(t, registry(t), "validate", p.cases)
	require.Equal(t, cli.ExitUsage, code)
	require.Contains(t, out, "driver: required (name a driver in the case, or set -driver (for every case) or defaultDriver in lux.json (for cases that name none))")
	require.NotContains(t, out, "Options.")
}
