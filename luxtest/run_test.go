package luxtest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/scripted"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/luxtest"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// registry holds the plugins the eval tests use: the subprocess driver,
// the scripted answerer, the built-in assertions and two predicates.
func registry(t testing.TB) *lux.Registry {
	t.Helper()
	reg := lux.NewRegistry()
	require.NoError(t, errors.Join(
		reg.RegisterDriver(subprocess.Plugin()),
		reg.RegisterAnswerer(scripted.Plugin()),
		assertion.Register(reg),
		// Passes only the first repetition of a case.
		reg.RegisterAssertion(assertion.Predicate("first-repetition", func(ctx context.Context, run *lux.Run) (lux.Result, error) {
			if run.Repetition == 1 {
				return assertion.Pass("the first repetition", nil), nil
			}
			return assertion.Fail("not the first repetition", nil), nil
		})),
		reg.RegisterAssertion(assertion.Predicate("cannot-grade", func(ctx context.Context, run *lux.Run) (lux.Result, error) {
			return lux.Result{}, errors.New("the grader is out of order")
		})),
		// Fails the second repetition when LUXTEST_REGRESS is set: a
		// change that makes a case worse without failing it outright.
		reg.RegisterAssertion(assertion.Predicate("regress-when-asked", func(ctx context.Context, run *lux.Run) (lux.Result, error) {
			if os.Getenv("LUXTEST_REGRESS") != "" && run.Repetition == 2 {
				return assertion.Fail("regressed on purpose", nil), nil
			}
			return assertion.Pass("as before", nil), nil
		})),
	))
	return reg
}

// echoDriver runs cases with echoagent.
func echoDriver() *lux.PluginRef {
	return &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{"command": echoagent, "idleTimeout": "30s"}}
}

func TestSuitePassesAndCleansUp(t *testing.T) {
	var mu sync.Mutex
	var finished []orchestrator.Update
	t.Run("suite", func(t *testing.T) {
		luxtest.Suite{
			Registry: registry(t),
			Options: orchestrator.Options{
				DefaultDriver: echoDriver(),
				Repetitions:   2,
				Progress: func(u orchestrator.Update) {
					if u.Kind == orchestrator.RunFinished {
						mu.Lock()
						finished = append(finished, u)
						mu.Unlock()
					}
				},
			},
		}.Run(t, luxtest.LoadCases(t, "testdata/cases")...)
	})
	mu.Lock()
	defer mu.Unlock()
	var got []string
	for _, u := range finished {
		require.NotNil(t, u.Passed, "run %s %d ungraded", u.CaseID, u.Repetition)
		assert.True(t, *u.Passed, "run %s %d failed", u.CaseID, u.Repetition)
		got = append(got, u.CaseID)
		assert.NoDirExists(t, u.RunDir, "the temporary runs root is removed once the test passes")
	}
	slices.Sort(got)
	assert.Equal(t, []string{"ask", "ask", "hello", "hello"}, got)
}

func TestRunWithOrchestrator(t *testing.T) {
	root := t.TempDir()
	o := orchestrator.New(registry(t), orchestrator.Options{RunsRoot: root, DefaultDriver: echoDriver()})
	luxtest.Run(t, o, &lux.Case{
		ID:         "inline/hello",
		Prompt:     `write hello.txt containing "hi"`,
		Assertions: []lux.AssertionSpec{assertion.FileContains("hello.txt", "hi")},
	})
	runs, err := record.FindRuns(root)
	require.NoError(t, err)
	assert.Len(t, runs, 1, "the orchestrator's own runs root keeps the records")
}

func TestLoadCasesReportsEveryProblem(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.case.json"), []byte(`{"id": "a", "prompt": ""}`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.case.json"), []byte(`{"id": "b", "prompt": "x", "colour": 1}`), 0o600))
	r := recordTB(t, func(tb testing.TB) { luxtest.LoadCases(tb, dir) })
	assert.True(t, r.fatal)
	require.Len(t, r.errors, 1)
	assert.Contains(t, r.errors[0], "a.case.json")
	assert.Contains(t, r.errors[0], "prompt: required")
	assert.Contains(t, r.errors[0], "b.case.json")
	assert.Contains(t, r.errors[0], "colour: unknown field")
}

// childCases are the cases of TestChildSuite: some pass, some do not.
func childCases() []*lux.Case {
	return []*lux.Case{
		{ID: "greet", Prompt: `write hello.txt containing "hi"`, Assertions: []lux.AssertionSpec{assertion.FileContains("hello.txt", "hi")}},
		{ID: "wrong-file", Prompt: `write hello.txt containing "bye"`, Assertions: []lux.AssertionSpec{
			assertion.FileExists("hello.txt"),
			assertion.FileContains("hello.txt", "hi", assertion.ID("greeting")),
		}},
		{ID: "agent-fails", Prompt: `fail "out of ideas"`, Assertions: []lux.AssertionSpec{assertion.RunSucceeded()}},
		{ID: "cannot-grade", Prompt: `say "hello"`, Assertions: []lux.AssertionSpec{{Type: "cannot-grade"}}},
		{ID: "no-assertions", Prompt: `say "hello"`},
		{ID: "flaky", Prompt: `say "hello"`, Assertions: []lux.AssertionSpec{{Type: "first-repetition"}}},
		{ID: "invalid", Prompt: `say "hello"`, Assertions: []lux.AssertionSpec{{Type: "no-such-assertion"}}},
		{ID: "slow-one", Prompt: `say "hello"`, Tags: []string{"slow"}, Assertions: []lux.AssertionSpec{assertion.RunSucceeded()}},
	}
}

// TestChildSuite is run by the tests below in a child process, where its
// failures are what they check.
func TestChildSuite(t *testing.T) {
	if os.Getenv("LUXTEST_CHILD") == "" {
		t.Skip("run by TestSuiteReports* in a child process")
	}
	luxtest.Suite{
		Registry:    registry(t),
		Options:     orchestrator.Options{DefaultDriver: echoDriver(), Repetitions: 2},
		Parallel:    true,
		MinPassRate: 0, // every repetition must pass
	}.Run(t, childCases()...)
}

// child runs TestChildSuite in a child process with args and returns its
// output and whether it passed.
func child(t *testing.T, args ...string) (string, bool) {
	t.Helper()
	return childEnv(t, nil, args...)
}

// childEnv is child with env added to the child's environment.
func childEnv(t *testing.T, env []string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.v"}, args...)...)
	cmd.Env = append(os.Environ(), "LUXTEST_CHILD=1", "LUXTEST_ECHOAGENT="+echoagent, "TMPDIR="+t.TempDir())
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running the child: %v", err)
	}
	return string(out), err == nil
}

func TestSuiteReportsFailures(t *testing.T) {
	out, ok := child(t, "-test.run=^TestChildSuite$")
	assert.False(t, ok, "the child suite must fail")
	// Failures point at the user's test, the line that runs the suite,
	// never at luxtest's own files.
	assert.Regexp(t, `run_test.go:\d+: luxtest: case "wrong-file"`, out)
	assert.NotRegexp(t, `(?m)^\s+(run|report|driver|problem|evidence)\.go:\d+:`, out)
	for _, want := range []string{
		"--- PASS: TestChildSuite/greet",
		"--- PASS: TestChildSuite/slow-one",
		// An assertion that failed, with its comment; the one that passed is not listed.
		`luxtest: case "wrong-file": 0 of 2 runs passed; want all 2`,
		"run 1: fail, exit done, score 0.50",
		`FAIL greeting (file-contains path=hello.txt text=hi): "hello.txt" does not contain "hi"`,
		// The exit reason and what the agent said.
		"run 1: fail, exit error",
		"the run ended error: out of ideas",
		`FAIL run-succeeded:1 (run-succeeded): the run ended with exit reason "error": out of ideas`,
		// Ungraded is a failure, with the grader's error.
		"run 1: ungraded, exit done",
		"UNGRADED cannot-grade:1 (cannot-grade): could not grade: assertion: predicate cannot-grade: the grader is out of order",
		"the case has no assertions, so it has no verdict",
		// Repetitions are reported one by one.
		`luxtest: case "flaky": 1 of 2 runs passed; want all 2`,
		"run 1: pass, exit done, score 1.00",
		"run 2: fail, exit done, score 0.00",
		"FAIL first-repetition:1 (first-repetition): not the first repetition",
		// An invalid case runs nothing.
		`luxtest: cannot run: orchestrator: case "invalid": lux: invalid case: assertions[0].type: unknown plugin: assertion "no-such-assertion"`,
		"luxtest: run records kept in ",
		"records: ", // a failure names the run directory to inspect
		"--- PASS: TestChildSuite/greet",
		"--- FAIL: TestChildSuite/wrong-file",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}

func TestSuiteHonoursRunAndShort(t *testing.T) {
	out, ok := child(t, "-test.run=^TestChildSuite$/^(greet|slow-one)$", "-test.short")
	assert.True(t, ok, "greet passes and slow-one is skipped")
	for _, want := range []string{"--- PASS: TestChildSuite/greet", "--- SKIP: TestChildSuite/slow-one",
		`luxtest: case "slow-one" is tagged "slow": skipped under -short`} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	for _, unwanted := range []string{"wrong-file", "run records kept"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("the output has %q", unwanted)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}

// A case whose repetitions pass only in part passes when enough of them do.
func TestSuiteMinPassRate(t *testing.T) {
	luxtest.Suite{
		Registry:    registry(t),
		Options:     orchestrator.Options{DefaultDriver: echoDriver(), Repetitions: 2},
		MinPassRate: 0.5,
	}.Run(t, &lux.Case{ID: "flaky", Prompt: `say "hello"`, Assertions: []lux.AssertionSpec{{Type: "first-repetition"}}})
}
