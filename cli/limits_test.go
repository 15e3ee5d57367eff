package cli_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// crashOnceAgent exits without a word the first time (a CLI that crashed
// before the agent did anything), then behaves as helloAgent.
const crashOnceAgent = `#!/bin/sh
marker="$(dirname "$0")/crashed"
if [ ! -e "$marker" ]; then
  : > "$marker"
  exit 3
fi
` + helloAgent

// lux run -retries retries a run whose agent crashed before doing
// anything; run.json lists both attempts.
func TestRunRetriesInfrastructureFailures(t *testing.T) {
	p := newProject(t)
	p.writeAgent(t, "agent/crash-once.sh", crashOnceAgent)
	p.writeCase(t, "flaky.case.json", `{
	  "prompt": "write hello.txt containing hi",
	  "driver": {"name": "subprocess", "config": {"command": "../agent/crash-once.sh"}},
	  "assertions": [{"type": "file-contains", "id": "says-hi", "path": "hello.txt", "text": "hi"}]
	}`)
	t.Chdir(p.dir)
	// The agent keeps its marker beside itself, which the landlock level
	// keeps read-only.
	code, out, errOut := run(t, registry(t), "run", "-q", "-retries", "1", "-retry-backoff", "1ms", "-sandbox", "limits")
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	runs, err := record.FindRuns(p.runs)
	require.NoError(t, err)
	require.Len(t, runs, 1)
	var m record.Metadata
	require.NoError(t, record.ReadJSON(filepath.Join(runs[0], record.MetadataFile), &m))
	require.Len(t, m.Attempts, 2)
	assert.Equal(t, record.FailureInfrastructure, m.Attempts[0].Failure)
	assert.Equal(t, "start", m.Attempts[0].Cause, "it exited before it was ready")
	assert.True(t, m.Attempts[0].Retried)
	assert.Equal(t, lux.ExitDone, m.Attempts[1].ExitReason)

	code, out, errOut = run(t, registry(t), "view", runs[0])
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "attempt 1:   error (infrastructure: start) — agent exited before ready")
	assert.Contains(t, out, "retried after 1ms; record in attempts/1")
	assert.Contains(t, out, "attempt 2:   done")
}

// lux run -suite-max-tokens stops starting runs once the suite spent it,
// and says so; exit status 1.
func TestRunSuiteBudget(t *testing.T) {
	p := newProject(t)
	for _, name := range []string{"a.case.json", "b.case.json", "c.case.json"} {
		p.writeCase(t, name, helloCase)
	}
	t.Chdir(p.dir)
	code, out, errOut := run(t, registry(t), "run", "-q", "-suite-max-tokens", "200")
	assert.Equal(t, 1, code, "%s\n%s", out, errOut)
	assert.Contains(t, errOut, "the suite's maxTokens budget of 200 is used up: 300 tokens spent by 2 runs; 1 run was not started")

	code, out, _ = run(t, registry(t), "run", "-q", "-json", "-suite-max-tokens", "200")
	assert.Equal(t, 1, code)
	doc := decodeJSON(t, out, "lux.suite/v1")
	assert.Equal(t, "budget", doc["stoppedBy"])
	assert.Contains(t, doc["stopReason"], "1 run was not started")

	code, _, errOut = run(t, registry(t), "run", "-q", "-max-cost", "-1")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "-max-cost: must be a positive number of US dollars, got -1")
}
