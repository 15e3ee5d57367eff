package temporal

import (
	"context"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
