package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/cli"
)

// seqAgent passes or fails by a script: the file $SEQ holds a string of P
// and F, the n-th run of the case follows its n-th letter (the last one
// once the string is used up); $SEQ.n counts the runs. It keeps them
// outside its workspace, so its runs are at sandbox level limits.
const seqAgent = `#!/bin/sh
echo '{"type":"ready","agentId":"seq-agent"}'
n=$(cat "$SEQ.n" 2>/dev/null || echo 0)
n=$((n+1))
echo $n > "$SEQ.n"
seq=$(cat "$SEQ")
i=$n
[ $i -gt ${#seq} ] && i=${#seq}
c=$(printf %s "$seq" | cut -c$i)
if [ "$c" = P ]; then echo hi > "$LUX_ARTIFACTS_DIR/hello.txt"; else echo no > "$LUX_ARTIFACTS_DIR/hello.txt"; fi
echo '{"type":"done"}'
`

// seqProject writes one case per name, each following its own script.
type seqProject struct {
	*project
	seqs string
}

func newSeqProject(t *testing.T, names ...string) *seqProject {
	t.Helper()
	p := &seqProject{project: newProject(t), seqs: filepath.Join(t.TempDir(), "seqs")}
	require.NoError(t, os.MkdirAll(p.seqs, 0o755))
	p.writeAgent(t, "agent/seq.sh", seqAgent)
	for _, n := range names {
		p.writeCase(t, n+".case.json", fmt.Sprintf(`{
		  "prompt": "write hello.txt containing hi",
		  "driver": {"name": "subprocess", "config": {"command": "../agent/seq.sh", "env": {"SEQ": %q}}},
		  "assertions": [{"type": "file-contains", "path": "hello.txt", "text": "hi"}]
		}`, filepath.Join(p.seqs, n)))
	}
	return p
}

// script sets what each case's runs do from now on, its count restarted.
func (p *seqProject) script(t *testing.T, seqs map[string]string) {
	t.Helper()
	for n, s := range seqs {
		require.NoError(t, os.WriteFile(filepath.Join(p.seqs, n), []byte(s), 0o644))
		_ = os.Remove(filepath.Join(p.seqs, n+".n"))
	}
}

// agentRuns is how many runs a case's agent made since its script was set.
func (p *seqProject) agentRuns(t *testing.T, name string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(p.seqs, name+".n"))
	require.NoError(t, err)
	var n int
	_, err = fmt.Sscan(string(b), &n)
	require.NoError(t, err)
	return n
}

func confirmOutcomes(t *testing.T, out string) (map[string]cli.ConfirmCase, cli.ConfirmReport) {
	t.Helper()
	var rep cli.ConfirmReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Equal(t, "lux.confirm/v1", rep.Schema)
	byID := map[string]cli.ConfirmCase{}
	for _, c := range rep.Cases {
		byID[c.CaseID] = c
	}
	return byID, rep
}

// lux run -confirm adds runs only where a case disagrees with the
// baseline, and stops each as soon as its sequential test decides: a
// consistently failing case is confirmed regressed, a one-off failure
// held, a newly passing case improved; an agreeing case gets no extra run.
func TestRunConfirmDecidesDisagreements(t *testing.T) {
	p := newSeqProject(t, "steady", "broken", "flaky", "fixed")
	reg := registry(t)
	p.script(t, map[string]string{"steady": "P", "broken": "P", "flaky": "P", "fixed": "F"})
	code, out, errOut := run(t, reg, "run", "-q", "-sandbox", "limits", "-runs-root", p.runs, "-repeat", "5", "-label", "main", p.cases)
	require.Equal(t, cli.ExitFailed, code, "fixed fails in the baseline\n%s\n%s", out, errOut)

	p.script(t, map[string]string{"steady": "P", "broken": "F", "flaky": "FP", "fixed": "P"})
	_, txt, _ := run(t, reg, "run", "-q", "-sandbox", "limits", "-runs-root", p.runs, "-baseline", "label:main", "-confirm", "-confirm-max", "20", p.cases)
	require.Regexp(t, `broken\s+5/5 passed\s+fail\s+regressed\s+14 \(0 passed\)\s+153\s`, txt)
	require.Regexp(t, `flaky\s+5/5 passed\s+fail\s+held\s+7 \(7 passed\)`, txt)
	require.Regexp(t, `fixed\s+0/5 passed\s+pass\s+improved\s+14 \(14 passed\)`, txt)
	require.Regexp(t, `steady\s+5/5 passed\s+pass\s+agrees\s+0\s`, txt)
	require.Contains(t, txt, "confirmed 3 of 3 disagreements using 35 extra runs, 39 in all (a fixed design at 21 repetitions would have used 84); threshold e ≥ 120")
	require.Contains(t, txt, "gate: FAIL: broken: regressed")
	p.script(t, map[string]string{"steady": "P", "broken": "F", "flaky": "FP", "fixed": "P"})
	code, out, errOut = run(t, reg, "run", "-q", "-json", "-sandbox", "limits", "-runs-root", p.runs, "-baseline", "label:main", "-confirm", "-confirm-max", "20", p.cases)
	require.Equal(t, cli.ExitFailed, code, "broken regressed\n%s\n%s", out, errOut)
	byID, rep := confirmOutcomes(t, out)

	require.Equal(t, "agrees", byID["steady"].Outcome)
	require.Nil(t, byID["steady"].Test)
	require.Equal(t, 1, p.agentRuns(t, "steady"), "an agreeing case runs once")

	require.Equal(t, "regressed", byID["broken"].Outcome)
	require.Equal(t, "held", byID["flaky"].Outcome)
	require.Equal(t, "improved", byID["fixed"].Outcome)
	extra := 0
	for _, n := range []string{"broken", "flaky", "fixed"} {
		tc := byID[n].Test
		require.NotNil(t, tc, n)
		require.Less(t, tc.Runs, 20, "%s decided before the cap", n)
		require.Equal(t, 1+tc.Runs, p.agentRuns(t, n), "%s: the screening run and its extra runs", n)
		require.GreaterOrEqual(t, max(tc.EChange, tc.EHeld), tc.Threshold, n)
		extra += tc.Runs
	}
	require.Equal(t, 3, rep.Disagreements)
	require.Equal(t, 3, rep.Decided)
	require.Equal(t, extra, rep.ExtraRuns)
	require.Equal(t, 21*4, rep.FixedRuns)
	require.True(t, rep.GateFailed)
	require.Less(t, 4+rep.ExtraRuns, rep.FixedRuns)

	// The new suite is the first run of every case, and latest still
	// names it (the extra runs are under .confirm), so lux compare sees it.
	code, out, _ = run(t, reg, "compare", "-runs-root", p.runs, "label:main", "latest")
	require.NotEqual(t, cli.ExitUsage, code, out)
	require.Contains(t, out, rep.Suite.SuiteID)
}

// The cap bounds the extra runs; a regression left undecided fails the gate.
func TestRunConfirmRespectsTheCap(t *testing.T) {
	p := newSeqProject(t, "broken", "steady")
	reg := registry(t)
	p.script(t, map[string]string{"broken": "P", "steady": "P"})
	code, _, _ := run(t, reg, "run", "-q", "-sandbox", "limits", "-runs-root", p.runs, "-repeat", "5", "-label", "main", p.cases)
	require.Equal(t, cli.ExitOK, code)

	p.script(t, map[string]string{"broken": "F", "steady": "P"})
	code, out, errOut := run(t, reg, "run", "-q", "-sandbox", "limits", "-runs-root", p.runs, "-baseline", "label:main", "-confirm", "-confirm-max", "3", p.cases)
	require.Equal(t, cli.ExitFailed, code, "%s\n%s", out, errOut)
	require.Equal(t, 4, p.agentRuns(t, "broken"))
	require.Equal(t, 1, p.agentRuns(t, "steady"))
	require.Regexp(t, `broken\s+5/5 passed\s+fail\s+undecided\s+3 \(0 passed\)`, out)
	require.Contains(t, out, "confirmed 0 of 1 disagreements using 3 extra runs, 5 in all (a fixed design at 4 repetitions would have used 8)")
	require.Contains(t, out, "gate: FAIL: broken: regression undecided at the cap")

	// Every case agreeing: no extra run, the gate passes.
	p.script(t, map[string]string{"broken": "P", "steady": "P"})
	code, out, errOut = run(t, reg, "run", "-q", "-sandbox", "limits", "-runs-root", p.runs, "-baseline", "label:main", "-confirm", p.cases)
	require.Equal(t, cli.ExitOK, code, "%s\n%s", out, errOut)
	require.Contains(t, out, "confirmed 0 of 0 disagreements using 0 extra runs, 2 in all")
}

func TestRunConfirmFlags(t *testing.T) {
	p := newSeqProject(t, "steady")
	reg := registry(t)
	for _, args := range [][]string{
		{"-confirm"},
		{"-baseline", "latest"},
		{"-confirm", "-baseline", "latest", "-repeat", "3"},
		{"-confirm", "-baseline", "latest", "-confirm-max", "0"},
		{"-confirm", "-baseline", "label:nothing"},
	} {
		code, _, errOut := run(t, reg, append(append([]string{"run", "-q", "-sandbox", "limits", "-runs-root", p.runs}, args...), p.cases)...)
		require.Equal(t, cli.ExitUsage, code, "%v: %s", args, errOut)
	}
}
