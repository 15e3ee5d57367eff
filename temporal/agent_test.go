package temporal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// agentScript is a real agent, a shell script speaking lux-jsonl, that
// does what its prompt's first word says: "hello" writes hello.txt,
// "hang" starts a child that sleeps and waits for it (a process tree that
// only a stop ends), "gate" waits for the file release in $GATE.
const agentScript = `#!/bin/sh
echo '{"type":"ready","agentId":"sh-agent","agentVersion":"1"}'
case "$LUX_PROMPT" in
hello*) printf hello > hello.txt ;;
hang*) sleep 1000 & echo "$$ $!" > "$GATE/pids.$LUX_CASE_ID"; wait ;;
gate*) touch "$GATE/started.$LUX_CASE_ID.$$"
	while [ ! -e "$GATE/release" ]; do sleep 0.05; done
	printf hello > hello.txt ;;
esac
echo '{"type":"done","summary":{"usage":{"input":1,"output":1}}}'
`

// writeAgent writes the agent into dir, with its gate directory.
func writeAgent(t testing.TB, dir string) (agent, gate string) {
	t.Helper()
	agent, gate = filepath.Join(dir, "agent.sh"), filepath.Join(dir, "gate")
	require.NoError(t, os.MkdirAll(gate, 0o755))
	require.NoError(t, os.WriteFile(agent, []byte(agentScript), 0o755))
	return agent, gate
}

// agentCase is a case the agent runs with prompt, passing when hello.txt
// holds text.
func agentCase(id, prompt, text, agent, gate string) *lux.Case {
	return &lux.Case{ID: id, Prompt: prompt,
		Driver: &lux.PluginRef{Name: "subprocess", Config: map[string]any{"command": agent, "env": map[string]string{"GATE": gate}, "idleTimeout": "20s"}},
		Assertions: []lux.AssertionSpec{
			{Type: "run-succeeded"},
			{Type: "file-contains", Config: map[string]any{"path": "hello.txt", "text": text}},
		}}
}

// testOptions are the options of the tests' suites: no sandbox, so that
// the agent may write into its gate directory.
func testOptions(root string) orchestrator.Options {
	return orchestrator.Options{RunsRoot: root, Sandbox: sandbox.Config{Level: sandbox.LevelNone}}
}

// planOf returns c's planned run as an Orchestrator with opts plans it.
func planOf(t testing.TB, reg *lux.Registry, opts orchestrator.Options, c *lux.Case) orchestrator.PlannedRun {
	t.Helper()
	var got *orchestrator.PlannedRun
	opts.Executor = executorFunc(func(ctx context.Context, run *orchestrator.PlannedRun) (*record.Run, error) {
		got = run
		return nil, errors.New("planned only")
	})
	_, _ = orchestrator.New(reg, opts).Run(orchestrator.WithRunKey(context.Background(), "unit/"+c.ID), c)
	require.NotNil(t, got, "the case was planned")
	return *got
}

type executorFunc func(ctx context.Context, run *orchestrator.PlannedRun) (*record.Run, error)

func (f executorFunc) Execute(ctx context.Context, run *orchestrator.PlannedRun) (*record.Run, error) {
	return f(ctx, run)
}

// waitABit paces a loop that waits for a file an agent writes.
func waitABit() <-chan time.Time { return time.After(20 * time.Millisecond) }
