package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/experiment"
	"github.com/luxeval/lux/stats"
)

// seqCampaign is a sequential campaign of two variants on six cases: a
// sign test (pass rate ≥ 0 against the baseline), at most maxRounds
// rounds, futile below a 60 % win rate.
func seqCampaign(t *testing.T, maxRounds int, futility float64) experiment.SeqRuleSpec {
	t.Helper()
	zero := 0.0
	c := &experiment.Campaign{
		Profiles:   map[string]experiment.Profile{"p": {}},
		Variants:   []experiment.Variant{{ID: "variant-x"}, {ID: "variant-y"}},
		Sequential: &experiment.Sequential{MaxRounds: maxRounds, FutilityWinRate: futility},
	}
	c.Objectives.Constraints = []experiment.Constraint{{Metric: experiment.MetricPassRate, RelativeTo: experiment.BaselineID, Min: &zero}}
	cands := []experiment.CandidateRef{{ID: experiment.BaselineID}, {ID: "variant-x"}, {ID: "variant-y"}}
	var refs []experiment.CaseRef
	for i := 1; i <= 6; i++ {
		refs = append(refs, experiment.CaseRef{ID: fmt.Sprintf("c%d", i)})
	}
	return experiment.NewSeqRuleSpec(c, cands, map[string][]experiment.CaseRef{experiment.SplitValidation: refs})
}

// roundUnits are round r's units of every candidate of spec.
func roundUnits(spec experiment.SeqRuleSpec, r int) []experiment.RoundUnit {
	var out []experiment.RoundUnit
	for _, cand := range spec.Candidates {
		for _, id := range spec.Cases[experiment.SplitValidation] {
			out = append(out, experiment.RoundUnit{Key: fmt.Sprintf("e/%s/%s/%d", cand.ID, id, r),
				Sample: experiment.RoundSample{Candidate: cand.ID, Profile: "p", Split: experiment.SplitValidation, CaseID: id, Round: r}})
		}
	}
	return out
}

// passes is the outcome the tests give each run: the baseline passes c1
// and c2, variant-x every case, variant-y none. Each round gives
// variant-x 4 discordant wins and variant-y 2 losses: at α = 0.05/2 the
// sign test crosses for variant-x in round 2 and gives variant-y up as
// futile in round 3.
func passes(key string) bool {
	switch {
	case strings.Contains(key, "/baseline/"):
		return strings.Contains(key, "/c1/") || strings.Contains(key, "/c2/")
	case strings.Contains(key, "/variant-x/"):
		return true
	}
	return false
}

func passingRuns() *fakeRuns {
	return &fakeRuns{outcome: func(ctx context.Context, key string, _ int) (*RunSummary, error) {
		p := passes(key)
		return &RunSummary{Key: key, RunID: "runs/" + key, ExitReason: lux.ExitDone, Passed: &p}, nil
	}}
}

// decode turns an update's answer (the handler's value, or its payload)
// into out.
func decode(t *testing.T, v any, out any) {
	t.Helper()
	if ev, ok := v.(converter.EncodedValue); ok {
		require.NoError(t, ev.Get(out))
		return
	}
	data, err := json.Marshal(v)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, out))
}

// fakeClient plays the experiment's side of the protocol in a test
// environment: it asks for each round, sends the runs of the baseline
// and the variants the workflow says run it to the round's runs
// workflow, ends the round and keeps each record, up to stopAfter rounds
// (0: until the workflow says no variant runs on).
type fakeClient struct {
	t         *testing.T
	env       *testsuite.TestWorkflowEnvironment
	spec      experiment.SeqRuleSpec
	stopAfter int
	records   []experiment.RoundRecord
	children  []string
	sent      map[int]int // runs sent per round
}

func (c *fakeClient) begin(r int) {
	c.env.UpdateWorkflow(BeginRoundUpdate, "", &testsuite.TestUpdateCallback{
		OnAccept: func() {},
		OnReject: func(err error) { c.t.Errorf("begin round %d rejected: %v", r, err) },
		OnComplete: func(v any, err error) {
			if !assert.NoError(c.t, err, "begin round %d", r) {
				return
			}
			var st RoundStarted
			decode(c.t, v, &st)
			c.children = append(c.children, st.WorkflowID)
			for _, u := range roundUnits(c.spec, r) {
				if u.Sample.Candidate == experiment.BaselineID || slices.Contains(st.Active, u.Sample.Candidate) {
					c.sent[r]++
					require.NoError(c.t, c.env.SignalWorkflowByID(st.WorkflowID, RunSignal, RunRequest{Run: planned(u.Key), Request: u.Key}))
				}
			}
			c.end(r)
		},
	}, BeginRound{Round: r, Units: roundUnits(c.spec, r)})
}

func (c *fakeClient) end(r int) {
	c.env.UpdateWorkflow(EndRoundUpdate, "", &testsuite.TestUpdateCallback{
		OnAccept: func() {},
		OnReject: func(err error) { c.t.Errorf("end round %d rejected: %v", r, err) },
		OnComplete: func(v any, err error) {
			if !assert.NoError(c.t, err, "end round %d", r) {
				return
			}
			var rec experiment.RoundRecord
			decode(c.t, v, &rec)
			c.records = append(c.records, rec)
			if len(rec.Active) > 0 && rec.Round < c.spec.Sequential.MaxRounds && (c.stopAfter == 0 || len(c.records) < c.stopAfter) {
				c.begin(r + 1)
			}
		},
	}, EndRound{Round: r})
}

func newExperimentEnv(f *fakeRuns) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(ExperimentWorkflow, workflow.RegisterOptions{Name: ExperimentWorkflowName})
	env.RegisterWorkflowWithOptions(RunsWorkflow, workflow.RegisterOptions{Name: RunsWorkflowName})
	env.RegisterActivityWithOptions(f.Run, activity.RegisterOptions{Name: RunActivityName})
	return env
}

// runExperiment runs the experiment workflow from last with a fake
// client asking for rounds from last's next.
func runExperiment(t *testing.T, f *fakeRuns, p ExperimentParams, stopAfter int) (*fakeClient, *testsuite.TestWorkflowEnvironment) {
	env := newExperimentEnv(f)
	c := &fakeClient{t: t, env: env, spec: p.Rule, stopAfter: stopAfter, sent: map[int]int{}}
	next := 1
	if p.Last != nil {
		next = p.Last.Round + 1
	}
	env.RegisterDelayedCallback(func() { c.begin(next) }, time.Second)
	env.ExecuteWorkflow(ExperimentWorkflowName, p)
	require.True(t, env.IsWorkflowCompleted())
	return c, env
}

// localRecords are the records the rule gives, run here round by round on
// the same samples, for as many rounds as n.
func localRecords(t *testing.T, spec experiment.SeqRuleSpec, n int) []experiment.RoundRecord {
	rule, err := experiment.NewSeqRule(spec)
	require.NoError(t, err)
	var out []experiment.RoundRecord
	for r := 1; r <= n; r++ {
		var samples []experiment.RoundSample
		for _, u := range roundUnits(spec, r) {
			p := passes(u.Key)
			s := u.Sample
			s.ExitReason, s.Passed = lux.ExitDone, &p
			samples = append(samples, s)
		}
		rec, err := rule.Observe(r, samples)
		require.NoError(t, err)
		out = append(out, rec)
	}
	return out
}

// The workflow runs each round as a child runs workflow, stops
// variant-x once its gate crosses (round 2) and variant-y once futile
// (round 3), and ends when no variant runs on: its records are those
// the rule gives run here on the same samples.
func TestExperimentWorkflowRunsRoundsAsChildrenAndStopsEachVariant(t *testing.T) {
	spec := seqCampaign(t, 6, 0.6)
	f := passingRuns()
	c, env := runExperiment(t, f, ExperimentParams{Rule: spec}, 0)
	require.NoError(t, env.GetWorkflowError())
	var res ExperimentResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Len(t, c.records, 3)
	assert.Equal(t, []string{"default-test-workflow-id/1", "default-test-workflow-id/2", "default-test-workflow-id/3"}, c.children, "one runs workflow per round")
	assert.Equal(t, map[int]int{1: 18, 2: 18, 3: 12}, c.sent, "round 3: the baseline and variant-y")
	assert.Len(t, f.ids, 48, "each run one activity")
	assert.Equal(t, []string{"variant-x", "variant-y"}, c.records[0].Active)
	assert.Equal(t, []string{"variant-y"}, c.records[1].Active)
	assert.Equal(t, []string{}, c.records[2].Active)
	stop := map[string]stats.StopReason{}
	for _, g := range c.records[2].Gates {
		stop[g.Candidate] = g.Stop
	}
	assert.Equal(t, map[string]stats.StopReason{"variant-x": stats.Crossed, "variant-y": stats.Futile}, stop)
	require.NotNil(t, res.Last)
	assert.Equal(t, 3, res.Last.Round)
	assert.False(t, res.Idle)
	if diff := cmp.Diff(localRecords(t, spec, 3), c.records); diff != "" {
		t.Errorf("the workflow's records differ from the rule's run here (-local +workflow):\n%s", diff)
	}
}

// With no discordant pair and no futility stop no gate decides: the
// campaign stops at MaxRounds, undecided.
func TestExperimentWorkflowStopsAtMaxRounds(t *testing.T) {
	spec := seqCampaign(t, 2, 0)
	f := &fakeRuns{outcome: func(ctx context.Context, key string, _ int) (*RunSummary, error) {
		p := true
		return &RunSummary{Key: key, RunID: "runs/" + key, ExitReason: lux.ExitDone, Passed: &p}, nil
	}}
	c, env := runExperiment(t, f, ExperimentParams{Rule: spec}, 0)
	require.NoError(t, env.GetWorkflowError())
	var res ExperimentResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Len(t, c.records, 2)
	assert.Equal(t, 2, res.Last.Round)
	assert.Equal(t, []string{}, res.Last.Active)
	for _, g := range res.Last.Gates {
		assert.Equal(t, stats.MaxReached, g.Stop, g.Candidate)
	}
}

// After MaxRoundsPerHistory rounds the workflow continues as new with
// the last round's record; the run it continues as, from that record,
// reaches the decision of one uninterrupted run.
func TestExperimentWorkflowContinuesAsNewBetweenRounds(t *testing.T) {
	spec := seqCampaign(t, 6, 0.6)
	c, env := runExperiment(t, passingRuns(), ExperimentParams{Rule: spec, MaxRoundsPerHistory: 1}, 1)
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "continued as new: %v", env.GetWorkflowError())
	assert.Equal(t, ExperimentWorkflowName, can.WorkflowType.Name)
	var next ExperimentParams
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.Len(t, c.records, 1)
	require.NotNil(t, next.Last)
	assert.Equal(t, c.records[0], *next.Last)

	next.MaxRoundsPerHistory = 0
	c2, env2 := runExperiment(t, passingRuns(), next, 0)
	require.NoError(t, env2.GetWorkflowError())
	all := append(c.records, c2.records...)
	if diff := cmp.Diff(localRecords(t, spec, 3), all); diff != "" {
		t.Errorf("continued, the records differ from the rule's run here (-local +workflow):\n%s", diff)
	}
}

// The samples the experiment recorded win over what the runs returned: a
// run the experiment failed (its tree was changed) counts as failed.
func TestExperimentWorkflowTakesTheRecordedSamples(t *testing.T) {
	spec := seqCampaign(t, 6, 0.6)
	c := &roundState{n: 1, units: roundUnits(spec, 1), active: []string{"variant-x"}}
	f := false
	c.recorded = []experiment.RoundSample{{Candidate: "variant-x", Profile: "p", Split: experiment.SplitValidation, CaseID: "c1", Round: 1, Passed: &f}}
	res := &RunsResult{}
	for _, u := range c.units {
		p := true
		res.Outcomes = append(res.Outcomes, KeyRecord{Key: u.Key, Runs: 1, Last: &Outcome{Summary: &RunSummary{Key: u.Key, RunID: "r", Passed: &p}}})
	}
	samples, missing := c.samples(res)
	require.Empty(t, missing)
	require.Len(t, samples, 12, "the baseline's and variant-x's, not variant-y's")
	for _, s := range samples {
		want := !(s.Candidate == "variant-x" && s.CaseID == "c1")
		assert.Equal(t, want, *s.Passed, "%s %s", s.Candidate, s.CaseID)
	}
	res.Outcomes = res.Outcomes[1:] // the baseline's c1 never ran
	_, missing = c.samples(res)
	assert.Equal(t, "e/baseline/c1/1", missing)
}

// A round whose runs workflow ends without every run (its idle timeout
// passed with the experiment gone) is not observed: the round is asked
// for again and runs in a new runs workflow.
func TestExperimentWorkflowAsksAgainForAnIncompleteRound(t *testing.T) {
	spec := seqCampaign(t, 1, 0.6)
	f := passingRuns()
	env := newExperimentEnv(f)
	var children []string
	var ends []error
	var rec experiment.RoundRecord
	begin := func(after func(st RoundStarted)) {
		env.UpdateWorkflow(BeginRoundUpdate, "", &testsuite.TestUpdateCallback{OnAccept: func() {}, OnReject: func(err error) { t.Error(err) },
			OnComplete: func(v any, err error) {
				require.NoError(t, err)
				var st RoundStarted
				decode(t, v, &st)
				children = append(children, st.WorkflowID)
				after(st)
			}}, BeginRound{Round: 1, Units: roundUnits(spec, 1)})
	}
	env.RegisterDelayedCallback(func() {
		begin(func(st RoundStarted) { // one run, then the experiment is gone
			require.NoError(t, env.SignalWorkflowByID(st.WorkflowID, RunSignal, RunRequest{Run: planned("e/baseline/c1/1"), Request: "1"}))
		})
	}, time.Second)
	env.RegisterDelayedCallback(func() {
		begin(func(st RoundStarted) {
			for _, u := range roundUnits(spec, 1) {
				require.NoError(t, env.SignalWorkflowByID(st.WorkflowID, RunSignal, RunRequest{Run: planned(u.Key), Request: u.Key}))
			}
			env.UpdateWorkflow(EndRoundUpdate, "", &testsuite.TestUpdateCallback{OnAccept: func() {}, OnReject: func(err error) { t.Error(err) },
				OnComplete: func(v any, err error) {
					ends = append(ends, err)
					if err == nil {
						decode(t, v, &rec)
					}
				}}, EndRound{Round: 1})
		})
	}, 3*time.Hour)
	env.ExecuteWorkflow(ExperimentWorkflowName, ExperimentParams{Rule: spec, Runs: Params{IdleTimeout: time.Hour}, IdleTimeout: 10 * time.Hour})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	assert.Equal(t, []string{"default-test-workflow-id/1", "default-test-workflow-id/1#2"}, children)
	assert.Equal(t, []error{nil}, ends)
	assert.Equal(t, 1, rec.Round)
}

// A workflow no one asks for a round ends after its idle timeout, with
// the round it started from.
func TestExperimentWorkflowEndsIdle(t *testing.T) {
	spec := seqCampaign(t, 6, 0.6)
	last := localRecords(t, spec, 1)[0]
	env := newExperimentEnv(passingRuns())
	env.ExecuteWorkflow(ExperimentWorkflowName, ExperimentParams{Rule: spec, Last: &last, IdleTimeout: time.Hour})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res ExperimentResult
	require.NoError(t, env.GetWorkflowResult(&res))
	assert.True(t, res.Idle)
	assert.Equal(t, &last, res.Last)
}

// The experiment workflow replays the histories a real server recorded of
// it (testdata/experiment-history, written by the sequential end-to-end
// test with LUX_TEMPORAL_RECORD_HISTORIES): a round begun, its child,
// its runs ended, the rule, a continue-as-new, an interrupted experiment
// taking the workflow up again, the end. A change to the workflow that
// would break the workflows running fails here.
func TestExperimentWorkflowReplaysRecordedHistories(t *testing.T) {
	dir := filepath.Join("testdata", "experiment-history")
	id, err := os.ReadFile(filepath.Join(dir, "workflow-id"))
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	replayer := worker.NewWorkflowReplayer()
	replayer.RegisterWorkflowWithOptions(ExperimentWorkflow, workflow.RegisterOptions{Name: ExperimentWorkflowName})
	for _, f := range files {
		data, err := os.Open(f)
		require.NoError(t, err)
		h, err := client.HistoryFromJSON(data, client.HistoryJSONOptions{})
		data.Close()
		require.NoError(t, err, f)
		assert.NoError(t, replayer.ReplayWorkflowHistoryWithOptions(nil, h,
			worker.ReplayWorkflowHistoryOptions{OriginalExecution: workflow.Execution{ID: strings.TrimSpace(string(id))}}), f)
	}
}
