//go:build linux

package subprocess_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// promptHarnessEnv makes the test binary a harness running promptCases
// (see runPromptHarness): LUX_TEST_PROMPT_HARNESS=<runs root>.
const promptHarnessEnv = "LUX_TEST_PROMPT_HARNESS"

// promptCases is one case whose agent tells the fifo (LUX_TEST_FIFO) its
// pid and its prompt file and waits, until the file LUX_TEST_DONE exists:
// then it finishes at once.
func promptCases() []*lux.Case {
	script := `if [ -e "$DONE" ]; then echo '{"type":"ready","agentId":"p"}'; echo '{"type":"done"}'; exit 0; fi
echo "$$ $LUX_PROMPT_FILE" > "$FIFO"
echo '{"type":"ready","agentId":"p"}'
exec sleep 300`
	return []*lux.Case{{ID: "prompt", Prompt: "wait", Driver: &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{
		"command": "/bin/sh", "args": []string{"-c", script},
		"env": map[string]string{"FIFO": os.Getenv("LUX_TEST_FIFO"), "DONE": os.Getenv("LUX_TEST_DONE")},
	}}, Assertions: []lux.AssertionSpec{assertion.RunSucceeded()}}}
}

func promptRegistry() (*lux.Registry, error) {
	reg := lux.NewRegistry()
	if err := reg.RegisterDriver(subprocess.Plugin()); err != nil {
		return nil, err
	}
	return reg, assertion.Register(reg)
}

func runPromptHarness() int {
	reg, err := promptRegistry()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// The agent reports through a fifo outside its workspace.
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: os.Getenv(promptHarnessEnv),
		Sandbox: sandbox.Config{ReadWrite: []string{filepath.Dir(os.Getenv("LUX_TEST_FIFO"))}}})
	_, err = o.RunSuite(context.Background(), promptCases())
	fmt.Fprintln(os.Stderr, "the suite ended:", err)
	return 1
}

// The prompt file of a run is under the runs root's live area, not in the
// system's temporary directory: after the harness is killed with SIGKILL
// and the suite resumed, no lux-prompt-* directory remains anywhere, and
// the live area holds nothing of the killed run.
func TestPromptFileOfAKilledHarnessIsRemovedByResume(t *testing.T) {
	dir := t.TempDir()
	tmp, root := filepath.Join(dir, "tmp"), filepath.Join(dir, "runs")
	require.NoError(t, os.Mkdir(tmp, 0o700))
	t.Setenv("TMPDIR", tmp)
	fifo, done := filepath.Join(dir, "fifo"), filepath.Join(dir, "done")
	t.Setenv("LUX_TEST_FIFO", fifo)
	t.Setenv("LUX_TEST_DONE", done)
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	lines, err := os.OpenFile(fifo, os.O_RDWR, 0) // never blocks, never sees end of file
	require.NoError(t, err)
	defer lines.Close()

	harness := exec.Command(os.Args[0], "-test.run=^$")
	harness.Env = append(os.Environ(), promptHarnessEnv+"="+root)
	harness.Stderr = os.Stderr
	require.NoError(t, harness.Start())
	t.Cleanup(func() { _ = harness.Process.Kill(); _ = harness.Wait() })

	sc := bufio.NewScanner(lines)
	require.True(t, sc.Scan())
	var pid int
	var promptFile string
	_, err = fmt.Sscan(sc.Text(), &pid, &promptFile)
	require.NoError(t, err, "line %q", sc.Text())
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	rel, err := filepath.Rel(filepath.Join(root, record.LiveDir), promptFile)
	require.NoError(t, err)
	assert.False(t, filepath.IsAbs(rel) || rel == ".." || len(rel) > 2 && rel[:3] == "../", "the prompt file %s is under the live area", promptFile)

	require.NoError(t, harness.Process.Signal(syscall.SIGKILL))
	_ = harness.Wait()
	require.True(t, waitGone(t, pid), "agent %s outlived the harness", strconv.Itoa(pid))

	require.NoError(t, os.WriteFile(done, nil, 0o600))
	suites, err := record.FindSuites(root)
	require.NoError(t, err)
	require.Len(t, suites, 1)
	reg, err := promptRegistry()
	require.NoError(t, err)
	res, err := orchestrator.New(reg, orchestrator.Options{RunsRoot: root}).ResumeSuite(context.Background(), suites[0], promptCases())
	require.NoError(t, err)
	assert.Equal(t, 1, res.Summary.Totals.Passed)

	left, err := filepath.Glob(filepath.Join(tmp, "lux-prompt-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "prompt directories left in the temporary directory")
	_, err = os.Stat(promptFile)
	assert.True(t, os.IsNotExist(err), "the killed run's prompt file %s remains", promptFile)
	live, _ := os.ReadDir(filepath.Join(root, record.LiveDir))
	assert.Empty(t, live, "the live area after the resume")
}
