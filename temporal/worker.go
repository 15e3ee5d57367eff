package temporal

import (
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Register registers the runs workflow, the experiment workflow and a's
// run activity on w.
func Register(w worker.Registry, a *Activities) {
	w.RegisterWorkflowWithOptions(RunsWorkflow, workflow.RegisterOptions{Name: RunsWorkflowName})
	w.RegisterWorkflowWithOptions(ExperimentWorkflow, workflow.RegisterOptions{Name: ExperimentWorkflowName})
	w.RegisterActivityWithOptions(a.Run, activity.RegisterOptions{Name: RunActivityName})
}

// NewWorker returns a worker of queue that executes runs with a, at most
// slots at once (0: the SDK's default), and the runs workflows.
func NewWorker(c client.Client, queue string, slots int, a *Activities) worker.Worker {
	w := worker.New(c, queue, worker.Options{MaxConcurrentActivityExecutionSize: slots})
	Register(w, a)
	return w
}
