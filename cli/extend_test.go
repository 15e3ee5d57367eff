package cli_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/cli"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

func TestAnExtensionAddsCommandsAndExecutors(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	writeCase(t, cases, "hello.case.json", echoHelloCase)
	root := filepath.Join(dir, "runs")

	var got struct {
		value, root string
		keys        []string
		closed      bool
	}
	var mu sync.Mutex
	ext := cli.Extension{
		Commands: []cli.Command{{Name: "hello", Summary: "says hello", Setup: func(fs *flag.FlagSet) func(context.Context, []string, io.Writer, io.Writer) int {
			name := fs.String("name", "world", "who")
			return func(_ context.Context, _ []string, stdout, _ io.Writer) int {
				fmt.Fprintf(stdout, "hello %s\n", *name)
				return 0
			}
		}}},
		Executor: func(_ context.Context, value, runsRoot string) (orchestrator.Executor, func(), error) {
			got.value, got.root = value, runsRoot
			x := executorFunc(func(ctx context.Context, run *orchestrator.PlannedRun) (*record.Run, error) {
				mu.Lock()
				got.keys = append(got.keys, run.Key)
				mu.Unlock()
				return orchestrator.ExecutePlanned(ctx, reg, orchestrator.Options{RunsRoot: runsRoot}, run, nil)
			})
			return x, func() { got.closed = true }, nil
		},
	}
	var stdout, stderr bytes.Buffer
	code := cli.MainWith(context.Background(), reg, ext, []string{"hello", "-name", "lux"}, &stdout, &stderr)
	require.Equal(t, cli.ExitOK, code, stderr.String())
	require.Equal(t, "hello lux\n", stdout.String())
	stdout.Reset()
	require.Equal(t, cli.ExitOK, cli.MainWith(context.Background(), reg, ext, []string{"help"}, &stdout, &stderr))
	require.Contains(t, stdout.String(), "says hello")

	stdout.Reset()
	code = cli.MainWith(context.Background(), reg, ext, []string{"run", "-q", "-runs-root", root, "-driver", driverJSON(),
		"-repeat", "2", "-executor", "remote://here", cases}, &stdout, &stderr)
	require.Equal(t, cli.ExitOK, code, stdout.String()+stderr.String())
	require.Contains(t, stdout.String(), "2 runs: 2 passed")
	require.Equal(t, "remote://here", got.value)
	require.Equal(t, root, got.root)
	require.Len(t, got.keys, 2, "every run went through the executor")
	require.True(t, got.closed)
}

func TestTheDefaultBinaryRefusesAnExecutorItDoesNotHave(t *testing.T) {
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	writeCase(t, cases, "hello.case.json", echoHelloCase)
	code, _, errOut := run(t, registry(t), "run", "-q", "-runs-root", filepath.Join(dir, "runs"), "-driver", driverJSON(),
		"-executor", "temporal://127.0.0.1:7233/q", cases)
	require.Equal(t, cli.ExitUsage, code)
	require.Contains(t, errOut, "this lux binary runs only locally")
}

type executorFunc func(ctx context.Context, run *orchestrator.PlannedRun) (*record.Run, error)

func (f executorFunc) Execute(ctx context.Context, run *orchestrator.PlannedRun) (*record.Run, error) {
	return f(ctx, run)
}
