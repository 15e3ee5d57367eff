package temporal

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/luxeval/lux/experiment"
)

// Names of the experiment workflow and its messages, as registered.
const (
	// ExperimentWorkflowName is the workflow of one sequential experiment:
	// it owns the round loop and runs the stopping rule between rounds.
	ExperimentWorkflowName = "lux.Experiment"
	// BeginRoundUpdate asks for a round (a BeginRound) and answers, once
	// the round's runs workflow (a child) has started, with a
	// RoundStarted: the variants that run it and where to send its runs.
	BeginRoundUpdate = "lux.beginRound"
	// EndRoundUpdate says every unit of a round is recorded (an
	// EndRound); the round's runs workflow then ends, the rule observes
	// the round, and the update answers with the round's record.
	EndRoundUpdate = "lux.endRound"
	// LastRoundQuery answers with the last round decided (an
	// *experiment.RoundRecord, nil before the first).
	LastRoundQuery = "lux.lastRound"
	// ErrRule: the stopping rule refused its spec or a round (the
	// workflow fails; running it again changes nothing).
	ErrRule = "LuxRule"
	// ErrContinuing: the experiment workflow is continuing as new; ask
	// again, and the next run of it answers.
	ErrContinuing = "LuxContinuing"
	// ErrRoundIncomplete: the round's runs workflow ended without a
	// sample of every unit (its idle timeout passed, say); the round is
	// asked for again, and runs in a new one.
	ErrRoundIncomplete = "LuxRoundIncomplete"
)

// ExperimentParams configures an experiment workflow.
type ExperimentParams struct {
	// Rule is the campaign's stopping rule.
	Rule experiment.SeqRuleSpec `json:"rule"`
	// Last is the round the loop goes on from (the journal's last, or the
	// run before a continue-as-new); nil starts at round 1.
	Last *experiment.RoundRecord `json:"last,omitempty"`
	// Runs configures each round's runs workflow (Params.Queue: the queue
	// of runs whose profile names none).
	Runs Params `json:"runs"`
	// IdleTimeout ends the workflow once it has waited that long for the
	// next round to be asked for; default DefaultIdleTimeout. A resumed
	// experiment starts a new one from its journal's last round.
	IdleTimeout time.Duration `json:"idleTimeoutNs,omitempty"`
	// MaxRoundsPerHistory, when positive, continues the workflow as new
	// after that many rounds; it always does once Temporal suggests it.
	MaxRoundsPerHistory int `json:"maxRoundsPerHistory,omitempty"`
}

// ExperimentResult is what an experiment workflow returns: the last round
// decided, and whether it ended waiting for the next to be asked for.
type ExperimentResult struct {
	Last *experiment.RoundRecord `json:"last,omitempty"`
	Idle bool                    `json:"idle,omitempty"`
}

// BeginRound is BeginRoundUpdate's request: the round and its units (the
// baseline's and every valid variant's).
type BeginRound struct {
	Round int                    `json:"round"`
	Units []experiment.RoundUnit `json:"units"`
}

// RoundStarted is BeginRoundUpdate's answer: the variants that run the
// round, and the round's runs workflow, to which the units' runs go
// (RunSignal).
type RoundStarted struct {
	experiment.RoundOrder
	WorkflowID string `json:"workflowId"`
	RunID      string `json:"runId"`
}

// EndRound is EndRoundUpdate's request: the round and the samples the
// experiment recorded of its units, which the rule reads over what the
// runs returned (the experiment's own checks may fail a run).
type EndRound struct {
	Round    int                      `json:"round"`
	Recorded []experiment.RoundSample `json:"recorded"`
}

// roundState is the round in progress.
type roundState struct {
	n        int
	units    []experiment.RoundUnit
	active   []string
	exec     *workflow.Execution // the runs workflow, once started
	child    workflow.ChildWorkflowFuture
	recorded []experiment.RoundSample
	ending   bool
	failed   string // why the round ended incomplete
}

// ExperimentWorkflow owns a sequential experiment's round loop. For each
// round the experiment asks for (BeginRoundUpdate) it starts a child
// runs workflow (RunsWorkflow: each run one activity, keyed by its run
// key), to which the experiment sends the round's runs; once the
// experiment says they are recorded (EndRoundUpdate) the child ends and
// returns each run's outcome, and the stopping rule (experiment.SeqRule,
// the code the experiment runs when it owns the loop) observes the
// round's samples. The workflow ends when no variant runs another round,
// continues as new after MaxRoundsPerHistory rounds or when Temporal
// suggests it, so no history grows with the campaign, and ends when the
// next round is not asked for within IdleTimeout.
func ExperimentWorkflow(ctx workflow.Context, p ExperimentParams) (*ExperimentResult, error) {
	rule, err := experiment.NewSeqRule(p.Rule)
	if err == nil && p.Last != nil {
		err = rule.Resume(*p.Last)
	}
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), ErrRule, nil)
	}
	info := workflow.GetInfo(ctx)
	if p.Runs.Queue == "" {
		p.Runs.Queue = info.TaskQueueName
	}
	idle := p.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	var (
		last     = p.Last
		cur      *roundState // the round in progress
		asked    *BeginRound // a round asked for, not started
		attempt  int         // runs workflows started for the next round
		rounds   int         // rounds decided by this run of the workflow
		draining bool        // continuing as new
	)
	if err := workflow.SetQueryHandler(ctx, LastRoundQuery, func() (*experiment.RoundRecord, error) { return last, nil }); err != nil {
		return nil, err
	}
	begin := func(ctx workflow.Context, req BeginRound) (*RoundStarted, error) {
		if cur == nil || cur.n != req.Round {
			asked = &req
		}
		var c *roundState
		if err := workflow.Await(ctx, func() bool {
			if cur != nil && cur.n == req.Round && cur.exec != nil {
				c = cur
			}
			return c != nil || draining
		}); err != nil {
			return nil, err
		}
		if c == nil {
			return nil, temporal.NewApplicationError("temporal: the experiment workflow is continuing as new", ErrContinuing)
		}
		return &RoundStarted{RoundOrder: experiment.RoundOrder{Round: c.n, Active: c.active}, WorkflowID: c.exec.ID, RunID: c.exec.RunID}, nil
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, BeginRoundUpdate, begin, workflow.UpdateHandlerOptions{
		Validator: func(_ workflow.Context, req BeginRound) error {
			if next := rule.Round() + 1; req.Round != next || rule.Done() {
				return fmt.Errorf("temporal: round %d cannot begin: round %d is the last decided, and %d variants run the next", req.Round, rule.Round(), len(rule.Active()))
			}
			return nil
		}}); err != nil {
		return nil, err
	}
	end := func(ctx workflow.Context, req EndRound) (*experiment.RoundRecord, error) {
		if last != nil && last.Round == req.Round {
			return last, nil
		}
		c := cur
		if c == nil || c.n != req.Round || c.exec == nil {
			return nil, fmt.Errorf("temporal: round %d is not running", req.Round)
		}
		c.recorded = req.Recorded
		if !c.ending {
			c.ending = true
			// The child may have ended already (idle): then its outcomes are in.
			_ = c.child.SignalChildWorkflow(ctx, EndSignal, nil).Get(ctx, nil)
		}
		if err := workflow.Await(ctx, func() bool { return last != nil && last.Round >= req.Round || c.failed != "" }); err != nil {
			return nil, err
		}
		if c.failed != "" {
			return nil, temporal.NewApplicationError(c.failed, ErrRoundIncomplete)
		}
		return last, nil
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, EndRoundUpdate, end, workflow.UpdateHandlerOptions{
		Validator: func(_ workflow.Context, req EndRound) error {
			if req.Round != rule.Round()+1 && (last == nil || last.Round != req.Round) {
				return fmt.Errorf("temporal: round %d cannot end: round %d is the last decided", req.Round, rule.Round())
			}
			return nil
		}}); err != nil {
		return nil, err
	}

	for !rule.Done() {
		r := rule.Round() + 1
		ok, err := workflow.AwaitWithTimeout(ctx, idle, func() bool { return asked != nil && asked.Round == r })
		if err != nil {
			return nil, err // cancelled: the child is cancelled with it
		}
		if !ok {
			draining = true
			_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
			return &ExperimentResult{Last: last, Idle: true}, nil
		}
		attempt++
		c := &roundState{n: r, units: asked.Units, active: rule.Active()}
		asked = nil
		runs := p.Runs
		runs.Outcomes, runs.Done, runs.Pending, runs.Ended = true, nil, nil, false
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: roundWorkflowID(info.WorkflowExecution.ID, r, attempt)})
		c.child = workflow.ExecuteChildWorkflow(cctx, RunsWorkflowName, runs)
		var exec workflow.Execution
		if err := c.child.GetChildWorkflowExecution().Get(ctx, &exec); err != nil {
			return nil, fmt.Errorf("temporal: round %d: starting its runs workflow: %w", r, err)
		}
		c.exec = &exec
		cur = c
		var res RunsResult
		cerr := c.child.Get(ctx, &res)
		if ctx.Err() != nil {
			return nil, temporal.NewCanceledError()
		}
		samples, missing := c.samples(&res)
		switch {
		case cerr != nil:
			c.failed = fmt.Sprintf("temporal: round %d: its runs workflow failed: %v", r, cerr)
		case missing != "":
			c.failed = fmt.Sprintf("temporal: round %d: its runs workflow ended without a run of %s", r, missing)
		}
		if c.failed != "" {
			cur = nil // the round is asked for again
			continue
		}
		rec, err := rule.Observe(r, samples)
		if err != nil {
			return nil, temporal.NewNonRetryableApplicationError(err.Error(), ErrRule, nil)
		}
		last, cur, attempt = &rec, nil, 0
		rounds++
		if !rule.Done() && (p.MaxRoundsPerHistory > 0 && rounds >= p.MaxRoundsPerHistory || info.GetContinueAsNewSuggested()) {
			draining = true
			if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
				return nil, err
			}
			next := p
			next.Last = last
			return nil, workflow.NewContinueAsNewError(ctx, ExperimentWorkflowName, next)
		}
	}
	draining = true
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return nil, err
	}
	return &ExperimentResult{Last: last}, nil
}

// samples are the round's samples of the baseline and the variants
// running: the one the experiment recorded of each unit, else the one
// its run returned. missing names a unit with neither.
func (c *roundState) samples(res *RunsResult) ([]experiment.RoundSample, string) {
	type coord struct{ cand, profile, split, caseID string }
	recorded := map[coord]experiment.RoundSample{}
	for _, s := range c.recorded {
		if s.Round == c.n {
			recorded[coord{s.Candidate, s.Profile, s.Split, s.CaseID}] = s
		}
	}
	ran := map[string]*Outcome{}
	for _, k := range res.Outcomes {
		ran[k.Key] = k.Last
	}
	var out []experiment.RoundSample
	for _, u := range c.units {
		s := u.Sample
		if s.Candidate != experiment.BaselineID && !slices.Contains(c.active, s.Candidate) {
			continue
		}
		s.Round = c.n
		if rec, ok := recorded[coord{s.Candidate, s.Profile, s.Split, s.CaseID}]; ok {
			out = append(out, rec)
			continue
		}
		o := ran[u.Key]
		if o == nil || o.Summary == nil || o.Summary.RunID == "" {
			return nil, u.Key
		}
		s.ExitReason, s.Passed, s.Score = o.Summary.ExitReason, o.Summary.Passed, o.Summary.Score
		out = append(out, s)
	}
	return out, ""
}

// roundWorkflowID is the ID of a round's runs workflow: the experiment
// workflow's, the round, and the attempt after the first.
func roundWorkflowID(parent string, round, attempt int) string {
	id := parent + "/" + strconv.Itoa(round)
	if attempt > 1 {
		id += "#" + strconv.Itoa(attempt)
	}
	return id
}

// isContinuing reports whether err says the experiment workflow was
// continuing as new.
func isContinuing(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == ErrContinuing
}
