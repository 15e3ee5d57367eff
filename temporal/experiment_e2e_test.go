package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/experiment"
	"github.com/luxeval/lux/orchestrator"
)

// TestDistributedExperimentResumesToTheLocalDecision runs the example
// campaign (examples/experiment) locally, then on two workers through a
// real dev server, interrupted after a few units and resumed: the
// distributed ledger reaches the local decision.
func TestDistributedExperimentResumesToTheLocalDecision(t *testing.T) {
	_, c := devServer(t)
	dir := t.TempDir()
	echo := filepath.Join(dir, "echoagent")
	out, err := exec.Command("go", "build", "-o", echo, "github.com/luxeval/lux/examples/agents/echoagent").CombinedOutput()
	require.NoError(t, err, "%s", out)
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
	require.NoError(t, assertion.Register(reg))
	campaign := func() *experiment.Campaign {
		cp, err := experiment.Load("../examples/experiment/project/house-style.experiment.json")
		require.NoError(t, err)
		p := cp.Profiles["echoagent"]
		p.Driver = &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{
			"command": echo, "env": map[string]string{"ECHOAGENT_INSTRUCTIONS": "{{lux.subjectRoot}}/AGENTS.md"}}}
		p.Queue = "experiment-units" // distributed, the arm's units go there; locally it means nothing
		cp.Profiles["echoagent"] = p
		return cp
	}
	ctx := context.Background()
	local, err := experiment.Run(ctx, reg, campaign(), experiment.Options{RunsRoot: filepath.Join(dir, "local"), Concurrency: 2})
	require.NoError(t, err)

	root := filepath.Join(dir, "shared")
	// One worker serves the executor's queue (the workflows), the other
	// the profile's (its units).
	var ran [2]atomic.Int32
	for i, queue := range []string{"experiment", "experiment-units"} {
		count := func(u orchestrator.Update) {
			if u.Kind == orchestrator.RunFinished {
				ran[i].Add(1)
			}
		}
		w := NewWorker(c, queue, 2, &Activities{Registry: reg, Store: SharedDir(root), Identity: "w" + string(rune('1'+i)),
			Options: orchestrator.Options{Progress: count}})
		require.NoError(t, w.Start())
		t.Cleanup(w.Stop)
	}
	// Five runs per history: the workflow continues as new several times.
	x := &Executor{Client: c, Queue: "experiment", RunsRoot: root, Params: Params{HeartbeatTimeout: 3 * time.Second, MaxRunsPerHistory: 5}}
	t.Cleanup(x.Close)
	ictx, interrupt := context.WithCancel(ctx)
	defer interrupt()
	opts := experiment.Options{RunsRoot: root, Concurrency: 4, Executor: x, Progress: func(p experiment.Progress) {
		if p.Finished && p.Done >= 5 {
			interrupt() // Ctrl-C, with units in flight
		}
	}}
	_, err = experiment.Run(ictx, reg, campaign(), opts)
	require.Error(t, err, "interrupted")
	t.Logf("interrupted: %v", err)
	ledgers, err := filepath.Glob(filepath.Join(root, experiment.ExperimentsDir, "*"))
	require.NoError(t, err)
	require.Len(t, ledgers, 1)
	opts.Progress = nil
	dist, err := experiment.Resume(ctx, reg, ledgers[0], campaign(), opts)
	require.NoError(t, err)
	t.Logf("local: %q; distributed, resumed: %q", local.Verdicts(), dist.Verdicts())
	assert.Equal(t, local.Verdicts(), dist.Verdicts())
	assert.Equal(t, local.Decision.Outcome, dist.Decision.Outcome)
	assert.Equal(t, local.Decision.Champion, dist.Decision.Champion)
	assert.Zero(t, ran[0].Load(), "no unit ran on the executor's queue")
	assert.Positive(t, ran[1].Load(), "the units ran on their profile's queue")
	d, err := c.DescribeWorkflowExecution(ctx, "lux/experiment/"+filepath.Base(ledgers[0]), "")
	require.NoError(t, err)
	info := d.GetWorkflowExecutionInfo()
	assert.NotEqual(t, info.GetFirstRunId(), info.GetExecution().GetRunId(), "the workflow continued as new")
}

// journaledRounds are the round records of a ledger's journal, as JSON.
func journaledRounds(t *testing.T, ledger string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ledger, experiment.JournalFile))
	require.NoError(t, err)
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e struct {
			Kind  string          `json:"kind"`
			Round json.RawMessage `json:"round"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &e))
		if e.Kind == "round" {
			out = append(out, string(e.Round))
		}
	}
	return out
}

// TestDistributedSequentialExperimentResumesToTheLocalDecision runs the
// sequential example campaign (examples/experiment) locally, then on
// Temporal, where the experiment workflow owns the round loop (a child
// runs workflow per round, the stopping rule between rounds, continued
// as new after every round), interrupted after its first round and
// resumed: the distributed ledger journals the local round records and
// reaches the local decision, and the workflow's histories replay.
func TestDistributedSequentialExperimentResumesToTheLocalDecision(t *testing.T) {
	_, c := devServer(t)
	dir := t.TempDir()
	echo := filepath.Join(dir, "echoagent")
	out, err := exec.Command("go", "build", "-o", echo, "github.com/luxeval/lux/examples/agents/echoagent").CombinedOutput()
	require.NoError(t, err, "%s", out)
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
	require.NoError(t, assertion.Register(reg))
	campaign := func() *experiment.Campaign {
		cp, err := experiment.Load("../examples/experiment/project/house-style-sequential.experiment.json")
		require.NoError(t, err)
		p := cp.Profiles["echoagent"]
		p.Driver = &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{
			"command": echo, "env": map[string]string{"ECHOAGENT_INSTRUCTIONS": "{{lux.subjectRoot}}/AGENTS.md"}}}
		p.Queue = "experiment-units"
		cp.Profiles["echoagent"] = p
		return cp
	}
	ctx := context.Background()
	local, err := experiment.Run(ctx, reg, campaign(), experiment.Options{RunsRoot: filepath.Join(dir, "local"), Concurrency: 2})
	require.NoError(t, err)
	localRounds := journaledRounds(t, local.Dir)
	require.GreaterOrEqual(t, len(localRounds), 2, "the example decides in rounds")

	root := filepath.Join(dir, "shared")
	var ran [2]atomic.Int32
	for i, queue := range []string{"experiment", "experiment-units"} {
		count := func(u orchestrator.Update) {
			if u.Kind == orchestrator.RunFinished {
				ran[i].Add(1)
			}
		}
		w := NewWorker(c, queue, 2, &Activities{Registry: reg, Store: SharedDir(root), Identity: "w" + string(rune('1'+i)),
			Options: orchestrator.Options{Progress: count}})
		require.NoError(t, w.Start())
		t.Cleanup(w.Stop)
	}
	x := &Executor{Client: c, Queue: "experiment", RunsRoot: root, MaxRoundsPerHistory: 1,
		Params: Params{HeartbeatTimeout: 3 * time.Second}}
	t.Cleanup(x.Close)
	ictx, interrupt := context.WithCancel(ctx)
	defer interrupt()
	var rounds, after atomic.Int32
	opts := experiment.Options{RunsRoot: root, Concurrency: 4, Executor: x, Progress: func(p experiment.Progress) {
		if p.Round != nil {
			rounds.Add(1)
		}
		if p.Finished && rounds.Load() >= 1 && after.Add(1) >= 3 {
			interrupt() // Ctrl-C in round 2, with units in flight
		}
	}}
	_, err = experiment.Run(ictx, reg, campaign(), opts)
	require.Error(t, err, "interrupted")
	t.Logf("interrupted: %v", err)
	ledgers, err := filepath.Glob(filepath.Join(root, experiment.ExperimentsDir, "*"))
	require.NoError(t, err)
	require.Len(t, ledgers, 1)
	require.Len(t, journaledRounds(t, ledgers[0]), 1, "interrupted after round 1")
	opts.Progress = nil
	dist, err := experiment.Resume(ctx, reg, ledgers[0], campaign(), opts)
	require.NoError(t, err)
	t.Logf("local: %q; distributed, resumed: %q", local.Verdicts(), dist.Verdicts())
	assert.Equal(t, local.Verdicts(), dist.Verdicts())
	assert.Equal(t, local.Decision.Outcome, dist.Decision.Outcome)
	assert.Equal(t, local.Decision.Champion, dist.Decision.Champion)
	assert.Equal(t, local.Decision.Sequential, dist.Decision.Sequential)
	assert.Equal(t, localRounds, journaledRounds(t, ledgers[0]), "the workflow's round records are the local ones")
	assert.Zero(t, ran[0].Load(), "no unit ran on the executor's queue")
	assert.Positive(t, ran[1].Load(), "the units ran on their profile's queue")

	// The experiment workflow ran each round as a child and continued as
	// new between rounds; it completed with the last round.
	id := "lux/experiment/" + filepath.Base(ledgers[0]) + "/rounds"
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	info := d.GetWorkflowExecutionInfo()
	assert.NotEqual(t, info.GetFirstRunId(), info.GetExecution().GetRunId(), "the workflow continued as new")
	var res ExperimentResult
	require.NoError(t, c.GetWorkflow(ctx, id, "").Get(ctx, &res))
	require.NotNil(t, res.Last)
	assert.Equal(t, len(localRounds), res.Last.Round)
	for r := 1; r <= len(localRounds); r++ {
		_, err := c.DescribeWorkflowExecution(ctx, roundWorkflowID(id, r, 1), "")
		assert.NoError(t, err, "round %d's runs workflow", r)
	}
	_, err = c.DescribeWorkflowExecution(ctx, roundWorkflowID(id, 2, 2), "")
	assert.Error(t, err, "the resumed experiment took up round 2's runs workflow, not a new one")

	// Every run of the experiment workflow replays: the rule is
	// deterministic workflow code.
	replayer := worker.NewWorkflowReplayer()
	replayer.RegisterWorkflowWithOptions(ExperimentWorkflow, workflow.RegisterOptions{Name: ExperimentWorkflowName})
	runID := info.GetFirstRunId()
	n := 0
	for ; runID != ""; n++ {
		var events []*historypb.HistoryEvent
		next := ""
		it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			e, err := it.Next()
			require.NoError(t, err)
			events = append(events, e)
			if a := e.GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
				next = a.GetNewExecutionRunId()
			}
		}
		h := &historypb.History{Events: events}
		require.NoError(t, replayer.ReplayWorkflowHistoryWithOptions(nil, h,
			worker.ReplayWorkflowHistoryOptions{OriginalExecution: workflow.Execution{ID: id, RunID: runID}}), "run %d (%s) replays", n, runID)
		if dir := os.Getenv(RecordHistoriesEnv); dir != "" {
			data, err := temporalproto.CustomJSONMarshalOptions{}.Marshal(h)
			require.NoError(t, err)
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.json", n+1)), data, 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "workflow-id"), []byte(id+"\n"), 0o644))
		}
		runID = next
	}
	assert.Equal(t, len(localRounds), n, "one run of the workflow per round")
}

// RecordHistoriesEnv names a directory the sequential end-to-end test
// writes the experiment workflow's histories to (one file per run), to
// refresh testdata/experiment-history, which
// TestExperimentWorkflowReplaysRecordedHistories replays without a
// server.
const RecordHistoriesEnv = "LUX_TEMPORAL_RECORD_HISTORIES"
