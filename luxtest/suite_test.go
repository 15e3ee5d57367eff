package luxtest_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/luxtest"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// One go test invocation of a Suite is one suite on disk, in the layout
// lux run writes, holding every case and repetition, with its label.
func TestSuiteRecordsOneSuite(t *testing.T) {
	root := t.TempDir()
	t.Run("suite", func(t *testing.T) {
		luxtest.Suite{
			Registry: registry(t),
			Options:  orchestrator.Options{DefaultDriver: echoDriver(), Repetitions: 2, RunsRoot: root},
			Label:    "main",
		}.Run(t, luxtest.LoadCases(t, "testdata/cases")...)
	})
	suites, err := record.FindSuites(root)
	require.NoError(t, err)
	require.Len(t, suites, 1, "one suite for the whole Run")
	s, err := record.ReadSuite(suites[0])
	require.NoError(t, err)
	assert.Equal(t, "main", s.Manifest.Label)
	assert.Equal(t, record.SuitePassed, s.Manifest.Status)
	require.NotNil(t, s.Summary, "the suite is finished, with its summary")
	var ids []string
	for _, it := range s.Manifest.Items {
		ids = append(ids, it.CaseID)
	}
	assert.ElementsMatch(t, []string{"ask", "ask", "hello", "hello"}, ids)
	got, err := record.ResolveSuite(root, "label:main")
	require.NoError(t, err)
	assert.Equal(t, suites[0], got)
}

// gateCases are the cases of TestChildGate: fragile regresses on its
// second repetition when LUXTEST_REGRESS is set, and still passes on its
// own (one of two runs, MinPassRate 0.5); only the gate can catch it.
func gateCases() []*lux.Case {
	return []*lux.Case{
		{ID: "stable", Prompt: `write hello.txt containing "hi"`, Assertions: []lux.AssertionSpec{assertion.FileContains("hello.txt", "hi")}},
		{ID: "fragile", Prompt: `say "hello"`, Assertions: []lux.AssertionSpec{{Type: "regress-when-asked"}}},
	}
}

// TestChildGate is run by TestSuiteGatesOnBaseline in a child process,
// configured by the environment as a CI job would be (LUX_RUNS_ROOT,
// LUX_LABEL, LUX_BASELINE).
func TestChildGate(t *testing.T) {
	if os.Getenv("LUXTEST_CHILD") == "" {
		t.Skip("run by TestSuiteGatesOnBaseline in a child process")
	}
	// The agent's config changes when LUXTEST_AGENT_CONFIG does: a change
	// that makes the runs measure something else, unless it is varied on
	// purpose.
	driver := echoDriver()
	driver.Config.(map[string]any)["env"] = map[string]any{"AGENT_CONFIG": os.Getenv("LUXTEST_AGENT_CONFIG")}
	luxtest.Suite{
		Registry:    registry(t),
		Options:     orchestrator.Options{DefaultDriver: driver, Repetitions: 2},
		MinPassRate: 0.5,
	}.Run(t, gateCases()...)
}

func TestSuiteGatesOnBaseline(t *testing.T) {
	root := t.TempDir()
	gate := func(env ...string) (string, bool) {
		t.Helper()
		return childEnv(t, append([]string{"LUX_RUNS_ROOT=" + root}, env...), "-test.run=^TestChildGate$")
	}

	// The baseline, recorded on main.
	out, ok := gate("LUX_LABEL=main")
	require.True(t, ok, out)
	assert.Contains(t, out, "luxtest: suite recorded in "+root)
	assert.Contains(t, out, "luxtest: pass@2 100.0%, pass^2 100.0% (mean over 2 cases")

	// A change that regresses nothing passes the gate, and says so.
	out, ok = gate("LUX_LABEL=pr", "LUX_BASELINE=label:main")
	require.True(t, ok, out)
	assert.Contains(t, out, "luxtest: no regression against the baseline")
	assert.Contains(t, out, "Gate: passed")

	// A regression fails the test with the gate's explanation, though
	// every case passed on its own.
	out, ok = gate("LUX_LABEL=pr", "LUX_BASELINE=label:main", "LUXTEST_REGRESS=1")
	require.False(t, ok, out)
	for _, want := range []string{
		"--- PASS: TestChildGate/fragile",
		"luxtest: the gate failed against the baseline",
		"Gate: FAILED",
		"untested falls",
		"fragile: pass rate 100.0% → 50.0%",
	} {
		assert.Contains(t, out, want)
	}

	// A change of what the runs measure fails the gate, unless the
	// comparison is told it is on purpose (LUX_VARY, lux compare -vary).
	out, ok = gate("LUX_BASELINE=label:main", "LUXTEST_AGENT_CONFIG=v2")
	require.False(t, ok, out)
	assert.Contains(t, out, "driverConfigHash")
	assert.Contains(t, out, "-vary driverConfigHash")
	assert.Contains(t, out, "name the field in $LUX_VARY")
	out, ok = gate("LUX_BASELINE=label:main", "LUXTEST_AGENT_CONFIG=v2", "LUX_VARY=driverConfigHash,source")
	require.True(t, ok, out)
	assert.Contains(t, out, "luxtest: no regression against the baseline")
	out, ok = gate("LUX_BASELINE=label:main", "LUX_VARY=colour")
	require.False(t, ok, out)
	assert.Contains(t, out, `unknown identity field "colour"`)
	assert.Contains(t, out, "LUX_VARY")

	// A baseline that cannot be found fails before anything runs, naming
	// what was searched.
	out, ok = gate("LUX_BASELINE=label:nightly")
	require.False(t, ok, out)
	assert.Contains(t, out, `no suite labelled "nightly" under `+root)
	assert.NotContains(t, out, "TestChildGate/stable")

	// Without a runs root of its own, the records go to a fresh
	// temporary directory, where no baseline can be: the error says what
	// to set.
	out, ok = childEnv(t, []string{"LUX_BASELINE=label:main"}, "-test.run=^TestChildGate$")
	require.False(t, ok, out)
	assert.Contains(t, out, "set LUX_RUNS_ROOT (or Options.RunsRoot) to the runs root the baseline was recorded in")

	suites, err := record.FindSuites(root)
	require.NoError(t, err)
	assert.Len(t, suites, 6, "one suite per go test invocation that ran")
	if t.Failed() {
		t.Log(out)
	}
}

// Records of a passing test are removed unless asked for with
// LUX_KEEP_RUNS; the failing ones are always kept.
func TestSuiteKeepsRunsWhenAsked(t *testing.T) {
	out, ok := childEnv(t, []string{"LUX_KEEP_RUNS=1"}, "-test.run=^TestChildSuite$/^greet$")
	require.True(t, ok, out)
	assert.Contains(t, out, "luxtest: run records kept in ")
	dir := strings.TrimSpace(strings.SplitN(strings.SplitN(out, "luxtest: run records kept in ", 2)[1], "\n", 2)[0])
	suites, err := record.FindSuites(dir)
	require.NoError(t, err)
	assert.Len(t, suites, 1, out)

	out, ok = child(t, "-test.run=^TestChildSuite$/^greet$")
	require.True(t, ok, out)
	assert.NotContains(t, out, "run records kept")
}
