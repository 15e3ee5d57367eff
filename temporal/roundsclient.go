package temporal

import (
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/luxeval/lux/experiment"
)

// route is where the run of a key goes instead of the group's runs
// workflow: a round's.
type route struct {
	id, runID string
}

// StartRounds implements experiment.RoundsExecutor: it starts the
// experiment's workflow (ExperimentWorkflow, ID WorkflowPrefix +
// "experiment/" + the experiment's ID + "/rounds"), or takes up the one
// running, which then owns the round loop; the runs of each round go to
// the round's runs workflow.
func (x *Executor) StartRounds(ctx context.Context, start experiment.RoundsStart) (experiment.Rounds, error) {
	prefix := x.WorkflowPrefix
	if prefix == "" {
		prefix = "lux/"
	}
	runs := x.Params
	runs.Queue = x.Queue
	p := ExperimentParams{Rule: start.Rule, Last: start.Last, Runs: runs, IdleTimeout: x.Params.IdleTimeout, MaxRoundsPerHistory: x.MaxRoundsPerHistory}
	id := prefix + "experiment/" + start.Experiment + "/rounds"
	_, err := x.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: x.Queue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING}, ExperimentWorkflowName, p)
	if err != nil {
		return nil, fmt.Errorf("temporal: experiment %s: %w", start.Experiment, err)
	}
	return &rounds{x: x, id: id}, nil
}

// rounds is an experiment workflow seen from the experiment.
type rounds struct {
	x    *Executor
	id   string
	keys []string // the keys routed to the round in progress
}

func (r *rounds) Last(ctx context.Context) (*experiment.RoundRecord, error) {
	v, err := r.x.Client.QueryWorkflow(ctx, r.id, "", LastRoundQuery)
	if err != nil {
		return nil, fmt.Errorf("temporal: %s: %w", r.id, err)
	}
	var rec *experiment.RoundRecord
	if err := v.Get(&rec); err != nil {
		return nil, fmt.Errorf("temporal: %s: %w", r.id, err)
	}
	return rec, nil
}

func (r *rounds) Begin(ctx context.Context, round int, units []experiment.RoundUnit) (*experiment.RoundOrder, error) {
	var started RoundStarted
	if err := r.update(ctx, BeginRoundUpdate, BeginRound{Round: round, Units: units}, &started); err != nil {
		return nil, err
	}
	r.release()
	r.x.mu.Lock()
	if r.x.routes == nil {
		r.x.routes = map[string]route{}
	}
	for _, u := range units {
		r.x.routes[u.Key] = route{id: started.WorkflowID, runID: started.RunID}
		r.keys = append(r.keys, u.Key)
	}
	r.x.mu.Unlock()
	return &started.RoundOrder, nil
}

func (r *rounds) End(ctx context.Context, round int, recorded []experiment.RoundSample) (*experiment.RoundRecord, error) {
	var rec experiment.RoundRecord
	if err := r.update(ctx, EndRoundUpdate, EndRound{Round: round, Recorded: recorded}, &rec); err != nil {
		return nil, err
	}
	r.release()
	return &rec, nil
}

func (r *rounds) Close() error {
	r.release()
	return nil
}

// release forgets the routes of the round in progress.
func (r *rounds) release() {
	r.x.mu.Lock()
	defer r.x.mu.Unlock()
	for _, k := range r.keys {
		delete(r.x.routes, k)
	}
	r.keys = nil
}

// update sends an update to the experiment workflow and waits for its
// answer; one sent while the workflow continued as new is sent again, to
// the run it continued as.
func (r *rounds) update(ctx context.Context, name string, arg, out any) error {
	for attempt := 1; ; attempt++ {
		h, err := r.x.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: r.id, UpdateName: name, Args: []any{arg},
			WaitForStage: client.WorkflowUpdateStageCompleted})
		if err == nil {
			err = h.Get(ctx, out)
		}
		if err != nil && isContinuing(err) && attempt < 10 && ctx.Err() == nil {
			continue
		}
		if err != nil {
			return fmt.Errorf("temporal: %s: %s: %w", r.id, name, err)
		}
		return nil
	}
}
