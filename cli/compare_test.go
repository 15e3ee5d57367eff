package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/cli"
	"github.com/luxeval/lux/record"
)

// Three cases, three repetitions each; between the two suites something
// the cases depend on breaks (a file outside the workspace disappears), so
// one case goes from 3/3 to 0/3 while every identity stays the same.
// `lux compare` must fail the gate and say which case and why.
func TestCompareFailsOnASureCaseRegression(t *testing.T) {
	reg := registry(t)
	before, after := brokenDependencySuites(t, reg, 3)

	code, out, errOut := run(t, reg, "compare", before, after)
	require.Equal(t, cli.ExitFailed, code, "a sure regression fails the default gate\n%s\n%s", out, errOut)
	require.Contains(t, out, "Gate: FAILED")
	require.Contains(t, out, "beta: pass rate 100.0% → 0.0% (3 → 3 runs), one-sided p = 0.05")
	require.NotContains(t, out, "176.8", "the interval stays inside [-100, +100] pts")
	require.Contains(t, out, "too few independent units for a useful interval (n=3)")

	code, out, _ = run(t, reg, "compare", "-json", before, after)
	require.Equal(t, cli.ExitFailed, code)
	top := decodeJSON(t, out, "lux.compare-suites/v1")
	require.Contains(t, top, "effects")
	var doc struct {
		Gate struct {
			Failed bool `json:"failed"`
			Checks []struct {
				Rule   string   `json:"rule"`
				Failed bool     `json:"failed"`
				Cases  []string `json:"cases"`
			} `json:"checks"`
		} `json:"gate"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.True(t, doc.Gate.Failed)
	var failing []string
	for _, ch := range doc.Gate.Checks {
		if ch.Failed {
			failing = append(failing, ch.Rule+":"+strings.Join(ch.Cases, ","))
		}
	}
	require.Equal(t, []string{"case-falls:beta"}, failing)
}

// brokenDependencySuites runs three cases reps times each, twice; between
// the two suites a file outside the workspace that beta depends on
// disappears, so beta goes from reps/reps to 0/reps while every identity
// stays the same. It returns the two suite directories, oldest first.
func brokenDependencySuites(t *testing.T, reg *lux.Registry, reps int) (before, after string) {
	t.Helper()
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	dep := filepath.Join(dir, "dependency")
	require.NoError(t, os.WriteFile(dep, []byte("ok\n"), 0o644))
	for _, name := range []string{"alpha", "beta", "gamma"} {
		extra := ""
		if name == "beta" {
			extra = fmt.Sprintf(`, {"type": "command-exits-zero", "id": "dependency", "command": %q}`, "test -f "+dep)
		}
		writeCase(t, cases, name+".case.json", fmt.Sprintf(`{
		  "prompt": "write %[1]s.txt containing \"%[1]s\"",
		  "assertions": [{"type": "file-contains", "path": "%[1]s.txt", "text": "%[1]s"}%[2]s]
		}`, name, extra))
	}
	root := filepath.Join(dir, "runs")
	code, out, errOut := run(t, reg, "run", "-q", "-repeat", strconv.Itoa(reps), "-runs-root", root, "-driver", driverJSON(), cases)
	require.Equal(t, cli.ExitOK, code, "%s\n%s", out, errOut)
	require.NoError(t, os.Remove(dep))
	code, out, errOut = run(t, reg, "run", "-q", "-repeat", strconv.Itoa(reps), "-runs-root", root, "-driver", driverJSON(), cases)
	require.Equal(t, cli.ExitFailed, code, "%s\n%s", out, errOut)
	suites, err := record.FindSuites(root)
	require.NoError(t, err)
	require.Len(t, suites, 2)
	before, after = suites[0], suites[1]
	if strings.Compare(before, after) > 0 {
		before, after = after, before
	}
	return before, after
}

// One run per case, a case going from pass to fail: no per-case test can
// reach 5 % with one run a side, so the default gate fails by the
// untested-falls rule, exit status 1, and says which rule decided it.
func TestCompareFailsOnAnUntestedFallAtOneRepetition(t *testing.T) {
	reg := registry(t)
	before, after := brokenDependencySuites(t, reg, 1)
	code, out, errOut := run(t, reg, "compare", before, after)
	require.Equal(t, cli.ExitFailed, code, "1/1 → 0/1 fails the default gate\n%s\n%s", out, errOut)
	require.Contains(t, out, "Gate: FAILED")
	require.Contains(t, out, "untested falls")
	require.Contains(t, out, "beta: pass rate 100.0% → 0.0% (1 → 1 runs)")

	code, out, _ = run(t, reg, "compare", "-json", before, after)
	require.Equal(t, cli.ExitFailed, code)
	var doc struct {
		Cases []struct {
			CaseID   string `json:"caseId"`
			Testable bool   `json:"testable"`
			GateRule string `json:"gateRule"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	var rules []string
	for _, c := range doc.Cases {
		rules = append(rules, c.CaseID+":"+c.GateRule)
	}
	require.Equal(t, []string{"alpha:", "beta:untested-falls", "gamma:"}, rules)
}

// Editing the agent between two suites changes its identity: the compare
// says which field changed, inside the field, and the exact flag that
// accepts it; with the flag the suites compare.
func TestCompareNotComparableSaysWhatAndHow(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent")
	bin, err := os.ReadFile(agentBin)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(agent, bin, 0o755))
	cases := filepath.Join(dir, "cases")
	for _, name := range []string{"alpha", "beta"} {
		writeCase(t, cases, name+".case.json", fmt.Sprintf(`{
		  "prompt": "write %[1]s.txt containing \"%[1]s\"",
		  "driver": {"name": "subprocess", "config": {"command": %[2]q}},
		  "assertions": [{"type": "file-contains", "path": "%[1]s.txt", "text": "%[1]s"}]
		}`, name, agent))
	}
	root := filepath.Join(dir, "runs")
	code, out, errOut := run(t, reg, "run", "-q", "-runs-root", root, cases)
	require.Equal(t, cli.ExitOK, code, "%s\n%s", out, errOut)
	f, err := os.OpenFile(agent, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("\n# edited\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	code, out, errOut = run(t, reg, "run", "-q", "-runs-root", root, cases)
	require.Equal(t, cli.ExitOK, code, "%s\n%s", out, errOut)
	suites, err := record.FindSuites(root)
	require.NoError(t, err)
	require.Len(t, suites, 2)
	slices.Sort(suites)

	code, out, _ = run(t, reg, "compare", suites[0], suites[1])
	require.Equal(t, cli.ExitFailed, code, out)
	require.Contains(t, out, "not comparable")
	require.Contains(t, out, "  ! alpha, beta\n    runtime — accept with -vary runtime\n")
	require.Regexp(t, `commands\[0\]\.sha256: [0-9a-f]{12}… → [0-9a-f]{12}…`, out)
	require.Contains(t, out, "lux compare -vary runtime A B")
	require.NotContains(t, out, "record.RuntimeInfo{", "no go-cmp dump")
	require.NotContains(t, out, "agent tokens       unavailable  unavailable", "no rows of metrics no case has")

	code, out, _ = run(t, reg, "compare", "-vary", "runtime", suites[0], suites[1])
	require.Equal(t, cli.ExitOK, code, out)
	require.Contains(t, out, "varied on purpose: runtime (2 cases)")

	runs, err := record.FindRuns(root)
	require.NoError(t, err)
	slices.Sort(runs)
	code, out, _ = run(t, reg, "compare", "-json", runs[0], runs[len(runs)-1])
	require.Equal(t, cli.ExitFailed, code, out)
	top := decodeJSON(t, out, "lux.compare-runs/v1")
	gate := top["gate"].(map[string]any)
	require.Equal(t, true, gate["failed"])
	require.NotEmpty(t, gate["checks"])
}
