package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/scripted"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/cli"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/record"
)

var agentBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lux-cli-test-")
	if err != nil {
		panic(err)
	}
	agentBin = filepath.Join(dir, "echoagent")
	build := exec.Command("go", "build", "-o", agentBin, "../examples/agents/echoagent")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building echoagent: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func registry(t *testing.T) *lux.Registry {
	t.Helper()
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
	require.NoError(t, reg.RegisterAnswerer(scripted.Plugin()))
	require.NoError(t, assertion.Register(reg))
	return reg
}

func writeCase(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	return path
}

func run(t *testing.T, reg *lux.Registry, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Main(context.Background(), reg, args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func driverJSON() string {
	return fmt.Sprintf(`{"name":"subprocess","config":{"command":%q}}`, agentBin)
}

// The echoagent cases (the driver comes from driverJSON): hello passes,
// color asks a question and fails on purpose.
const (
	echoHelloCase = `{
	  "prompt": "write hello.txt containing \"hi\"",
	  "tags": ["smoke"],
	  "assertions": [{"type": "file-contains", "path": "hello.txt", "text": "hi"}]
	}`
	echoColorCase = `{
	  "prompt": "ask \"Which color?\" and write the answer to color.txt",
	  "answerer": {"name": "scripted", "config": {"rules": [{"match": "color", "answer": "blue"}]}},
	  "assertions": [{"type": "file-contains", "path": "color.txt", "text": "red"}]
	}`
)

func TestRunValidateViewDoctor(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	writeCase(t, cases, "hello.case.json", echoHelloCase)
	writeCase(t, cases, "nested/color.case.json", echoColorCase)
	writeCase(t, cases, "notes.json", `{"not":"a case, ignored: only *.case.json files are read"}`)
	root := filepath.Join(dir, "runs")

	code, out, errOut := run(t, reg, "run", "-q", "-runs-root", root, "-driver", driverJSON(), cases)
	require.Equal(t, cli.ExitFailed, code, "the color case fails on purpose\n%s\n%s", out, errOut)
	require.Regexp(t, `color\s+1\s+FAIL\s+0\.00\s+done`, out)
	require.Regexp(t, `hello\s+1\s+pass\s+1\.00\s+done`, out)
	require.Contains(t, out, "2 runs: 1 passed, 1 failed (pass rate 50.0% of 2 graded)")
	require.Contains(t, out, `✗ file-contains:1: "color.txt" does not contain "red"`)

	code, out, _ = run(t, reg, "run", "-q", "-runs-root", root, "-driver", driverJSON(), "-tag", "SMOKE", "-repeat", "2", "-j", "2", cases)
	require.Equal(t, cli.ExitOK, code, out)
	require.Contains(t, out, "2 runs: 2 passed")

	code, out, _ = run(t, reg, "view", "-runs-root", root)
	require.Equal(t, cli.ExitOK, code)
	require.Regexp(t, `\.suites/\S+\s+failed\s+2\s+1\s+1\s+0`, out)
	require.Regexp(t, `\.suites/\S+\s+passed\s+2\s+2\s+0\s+0`, out)
	require.Equal(t, 3, strings.Count(out, "100% (1/1)"), out)
	runs, err := record.FindRuns(root)
	require.NoError(t, err)
	require.Len(t, runs, 4)

	var colorRun string
	for _, r := range runs {
		if strings.Contains(r, "color") {
			colorRun = r
		}
	}
	code, out, _ = run(t, reg, "view", colorRun)
	require.Equal(t, cli.ExitOK, code)
	require.Contains(t, out, "interrupts:  ask 1, approve 0, custom 0")
	require.Contains(t, out, "responded(ask): blue")
	require.Contains(t, out, "✗ file-contains")

	code, out, _ = run(t, reg, "validate", "-driver", driverJSON(), cases)
	require.Equal(t, cli.ExitOK, code, out)

	code, out, _ = run(t, reg, "doctor", "-runs-root", root, "-driver", driverJSON(), cases)
	require.Equal(t, cli.ExitOK, code, out)
	require.Contains(t, out, "echoagent found (sha256 ", "a lux-jsonl agent is identified by its content, never run to ask its version")
}

func TestInvalidCasesAreAllReported(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	bad := writeCase(t, dir, "bad.case.json", `{"prompt":"p","driverConfig":{}}`)
	worse := writeCase(t, dir, "worse.case.json", `{"prompt":"", "assertions":[{"type":"file-exists"}]}`)
	code, _, errOut := run(t, reg, "run", "-q", "-runs-root", filepath.Join(dir, "runs"), dir)
	require.Equal(t, cli.ExitUsage, code)
	require.Contains(t, errOut, bad+":\n  - driverConfig: unknown field")
	require.Contains(t, errOut, worse+":\n  - prompt: required")

	good := writeCase(t, t.TempDir(), "x.case.json", `{"prompt":"p","assertions":[{"type":"file-exists"},{"type":"no-such-type"}]}`)
	code, out, _ := run(t, reg, "validate", "-driver", driverJSON(), good)
	require.Equal(t, cli.ExitUsage, code)
	require.Contains(t, out, "assertions[0].path: required")
	require.Contains(t, out, `no-such-type`)
}

func TestUsageErrors(t *testing.T) {
	reg := registry(t)
	code, _, errOut := run(t, reg, "frobnicate")
	require.Equal(t, cli.ExitUsage, code)
	require.Contains(t, errOut, `unknown command "frobnicate"`)
	code, out, _ := run(t, reg, "help")
	require.Equal(t, cli.ExitOK, code)
	require.Contains(t, out, "compare")
	code, _, errOut = run(t, reg, "run", "-j", "0", t.TempDir())
	require.Equal(t, cli.ExitUsage, code)
	require.Contains(t, errOut, "no *.case.json files")
}

func TestCompare(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	writeCase(t, cases, "hello.case.json", echoHelloCase)
	writeCase(t, cases, "bye.case.json", `{
	  "prompt": "write bye.txt containing \"bye\"",
	  "assertions": [{"type": "file-contains", "path": "bye.txt", "text": "bye"}]
	}`)
	root := filepath.Join(dir, "runs")
	for range 2 {
		code, out, errOut := run(t, reg, "run", "-q", "-runs-root", root, "-driver", driverJSON(), cases)
		require.Equal(t, cli.ExitOK, code, "%s\n%s", out, errOut)
	}
	suites, err := record.FindSuites(root)
	require.NoError(t, err)
	require.Len(t, suites, 2)

	code, out, errOut := run(t, reg, "compare", suites[0], suites[1])
	require.Equal(t, cli.ExitOK, code, "%s\n%s", out, errOut)
	require.Contains(t, out, "no detectable difference")

	code, out, _ = run(t, reg, "compare", "-json", suites[0], suites[1])
	require.Equal(t, cli.ExitOK, code)
	require.Contains(t, out, `"verdict": "no detectable difference"`)

	runs, err := record.FindRuns(root)
	require.NoError(t, err)
	var hello, bye []string
	for _, r := range runs {
		if strings.Contains(r, "hello") {
			hello = append(hello, r)
		} else {
			bye = append(bye, r)
		}
	}
	code, out, _ = run(t, reg, "compare", hello[0], hello[1])
	require.Equal(t, cli.ExitOK, code, out)

	code, out, _ = run(t, reg, "compare", hello[0], bye[0])
	require.Equal(t, cli.ExitFailed, code, out)
	require.Contains(t, out, "not comparable")

	code, _, errOut = run(t, reg, "compare", hello[0], suites[0])
	require.Equal(t, cli.ExitUsage, code)
	require.Contains(t, errOut, suites[0])

	code, _, errOut = run(t, reg, "compare", cases, suites[0])
	require.Equal(t, cli.ExitUsage, code)
	require.Contains(t, errOut, "not a run or suite directory")
}
