package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// hookJournal records what the test hooks did, in order.
type hookJournal struct {
	mu  sync.Mutex
	log []string
}

func (j *hookJournal) add(format string, args ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.log = append(j.log, fmt.Sprintf(format, args...))
}

func (j *hookJournal) got() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.log...)
}

// journalHookConfig names the hook and the step that fails: "suite-setup",
// "case-setup", "case-cleanup" or "suite-cleanup".
type journalHookConfig struct {
	Name string `json:"name"`
	Fail string `json:"fail,omitempty"`
	j    *hookJournal
}

func (c *journalHookConfig) SetupSuite(_ context.Context, s lux.SuiteScope) (lux.Cleanup, error) {
	c.j.add("suite setup %s", c.Name)
	if c.Fail == "suite-setup" {
		return nil, errors.New("the database did not start")
	}
	return func(context.Context) error {
		c.j.add("suite cleanup %s", c.Name)
		if c.Fail == "suite-cleanup" {
			return errors.New("the database did not stop")
		}
		return nil
	}, nil
}

func (c *journalHookConfig) SetupCase(_ context.Context, s lux.CaseScope) (lux.Cleanup, error) {
	if _, err := os.Stat(s.Workspace); err != nil {
		return nil, fmt.Errorf("no workspace: %w", err)
	}
	c.j.add("case setup %s %s", c.Name, s.CaseID)
	if c.Fail == "case-setup" {
		return nil, errors.New("port 5432 in use")
	}
	return func(context.Context) error {
		c.j.add("case cleanup %s %s", c.Name, s.CaseID)
		if c.Fail == "case-cleanup" {
			return errors.New("the fixture service left a lock")
		}
		return nil
	}, nil
}

func journalHook(j *hookJournal) *lux.HookPlugin {
	return &lux.HookPlugin{Name: "journal", Doc: "records its calls", Version: "3",
		Parse: func(raw json.RawMessage) (lux.Hook, error) {
			c := &journalHookConfig{j: j}
			if err := lux.DecodeConfig(raw, c); err != nil {
				return nil, err
			}
			return c, nil
		}}
}

func hookOrchestrator(t *testing.T, j *hookJournal, hooks ...map[string]any) *Orchestrator {
	t.Helper()
	reg := testRegistry(t)
	require.NoError(t, reg.RegisterHook(journalHook(j)))
	opts := Options{RunsRoot: filepath.Join(t.TempDir(), "runs")}
	for _, h := range hooks {
		opts.Hooks = append(opts.Hooks, lux.PluginRef{Name: "journal", Config: h})
	}
	return New(reg, opts)
}

func helloCase(id, scen string) *lux.Case {
	return &lux.Case{ID: id, Prompt: "p", Driver: driverRef(scen),
		Assertions: []lux.AssertionSpec{{Type: "fixed", Config: map[string]any{"score": 1, "passed": true}}}}
}

func TestHooksOrderAroundSuiteAndRuns(t *testing.T) {
	var j hookJournal
	o := hookOrchestrator(t, &j, map[string]any{"name": "a"}, map[string]any{"name": "b"})
	scen := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		j.add("agent")
		return writeHello(ctx, a)
	})
	res, err := o.RunSuite(context.Background(), []*lux.Case{helloCase("one", scen), helloCase("two", scen)})
	require.NoError(t, err)
	want := []string{"suite setup a", "suite setup b"}
	for _, c := range []string{"one", "two"} {
		want = append(want, "case setup a "+c, "case setup b "+c, "agent", "case cleanup b "+c, "case cleanup a "+c)
	}
	want = append(want, "suite cleanup b", "suite cleanup a")
	if diff := cmp.Diff(want, j.got()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// The hooks are part of each run's identity.
	it := res.Manifest.Items[0]
	meta, _, err := record.ReadMetadata(filepath.Join(res.Dir, filepath.FromSlash(it.RunDir)))
	require.NoError(t, err)
	hooks := meta.Provenance.Runtime.Hooks
	require.Len(t, hooks, 2)
	assert.Equal(t, "journal", hooks[0].Name)
	assert.Equal(t, "3", hooks[0].Version)
	assert.NotEqual(t, hooks[0].ConfigHash, hooks[1].ConfigHash, "configs differ, so do their hashes")
	without := *meta
	without.Provenance.Runtime.Hooks = nil
	assert.NotEqual(t, record.IdentityHash(meta), record.IdentityHash(&without), "a run with hooks is not a repetition of one without")
	assert.Equal(t, record.VerdictPass, it.Verdict())
}

func TestHookCaseSetupFailureFailsTheRunAndRollsBack(t *testing.T) {
	var j hookJournal
	o := hookOrchestrator(t, &j, map[string]any{"name": "a"}, map[string]any{"name": "b", "fail": "case-setup"})
	res, err := o.Run(context.Background(), helloCase("one", addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		t.Error("the agent started after a failed setup")
		return nil
	})))
	require.NoError(t, err)
	want := []string{"case setup a one", "case setup b one", "case cleanup a one"}
	if diff := cmp.Diff(want, j.got()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	f := res.Metadata.OperationalFailure
	require.NotNil(t, f)
	assert.Equal(t, record.PhaseHook, f.Phase)
	assert.Contains(t, f.Reason, `case setup: hook #2 "journal": setup: port 5432 in use`)
	assert.Equal(t, record.VerdictError, record.RunVerdict(res.Metadata, res.Grading))
	assert.Equal(t, lux.ExitError, res.Metadata.ExitReason)
}

func TestHookCleanupFailureIsNotedOnTheRun(t *testing.T) {
	var j hookJournal
	o := hookOrchestrator(t, &j, map[string]any{"name": "a", "fail": "case-cleanup"}, map[string]any{"name": "b"})
	res, err := o.Run(context.Background(), helloCase("one", addScenario(t, writeHello)))
	require.NoError(t, err)
	assert.Equal(t, []string{"case setup a one", "case setup b one", "case cleanup b one", "case cleanup a one"}, j.got())
	meta, g, err := record.ReadMetadata(res.Dir)
	require.NoError(t, err)
	require.NotNil(t, meta.OperationalFailure, "the cleanup failure is in run.json")
	assert.Equal(t, record.PhaseHook, meta.OperationalFailure.Phase)
	assert.Contains(t, meta.OperationalFailure.Reason, `case cleanup: hook #1 "journal": cleanup: the fixture service left a lock`)
	assert.Equal(t, record.VerdictPass, record.RunVerdict(meta, g), "the agent's verdict stands")
}

func TestHookSuiteSetupFailureRunsNothing(t *testing.T) {
	var j hookJournal
	o := hookOrchestrator(t, &j, map[string]any{"name": "a"}, map[string]any{"name": "b", "fail": "suite-setup"}, map[string]any{"name": "c"})
	_, err := o.RunSuite(context.Background(), []*lux.Case{helloCase("one", addScenario(t, writeHello))})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `hook #2 "journal": setup: the database did not start`)
	assert.Equal(t, []string{"suite setup a", "suite setup b", "suite cleanup a"}, j.got())
	suites, _ := record.FindSuites(o.RunsRoot())
	assert.Empty(t, suites, "no suite record is left behind")
}

func TestHookSuiteCleanupFailureIsReported(t *testing.T) {
	var j hookJournal
	o := hookOrchestrator(t, &j, map[string]any{"name": "a", "fail": "suite-cleanup"})
	res, err := o.RunSuite(context.Background(), []*lux.Case{helloCase("one", addScenario(t, writeHello))})
	require.Error(t, err)
	require.NotNil(t, res, "the suite's result comes with the cleanup error")
	assert.Contains(t, err.Error(), "the database did not stop")

	// suite.json records it, sealed as the rest of the suite's record.
	s, err := record.ReadSuite(res.Dir)
	require.NoError(t, err)
	assert.Contains(t, s.Manifest.CleanupError, `hook #1 "journal": cleanup: the database did not stop`)
	assert.Equal(t, record.SuitePassed, s.Manifest.Status, "the runs' verdicts stand")
	assert.Equal(t, s.Manifest.CleanupError, res.Manifest.CleanupError)
}

func TestHooksCleanUpOnCancel(t *testing.T) {
	var j hookJournal
	o := hookOrchestrator(t, &j, map[string]any{"name": "a"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	scen := addScenario(t, func(actx context.Context, a *fakeAgent) error {
		a.ready(actx)
		cancel() // ^C while the agent works
		<-actx.Done()
		return nil
	})
	_, err := o.RunSuite(ctx, []*lux.Case{helloCase("one", scen), helloCase("two", scen)})
	require.Error(t, err)
	got := j.got()
	assert.Equal(t, []string{"suite setup a", "case setup a one", "case cleanup a one", "suite cleanup a"}, got,
		"every setup is cleaned up exactly once, and nothing starts after the cancel")
}

func TestHooksInvalidReference(t *testing.T) {
	var j hookJournal
	reg := testRegistry(t)
	require.NoError(t, reg.RegisterHook(journalHook(&j)))
	o := New(reg, Options{RunsRoot: t.TempDir(), Hooks: []lux.PluginRef{{Name: "db"}, {Name: "journal", Config: map[string]any{"nmae": "x"}}}})
	_, err := o.Run(context.Background(), helloCase("one", addScenario(t, writeHello)))
	require.Error(t, err)
	for _, w := range []string{"Options.Hooks[0].name", `hook "db" (known: journal)`, "Options.Hooks[1].config.nmae: unknown field"} {
		assert.True(t, strings.Contains(err.Error(), w), "error does not say %q: %v", w, err)
	}
}
