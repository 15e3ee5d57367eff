package report

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/luxeval/lux"
)

// TestSuiteCellsAreTheSharedRows: a run's cell on the suite page says what
// its row in the CLI's table, JSON and JUnit says (record.NewRunRow): the
// verdict, how the run ended and why on one line (control characters
// shown as U+FFFD), and the score; a case's failed assertions, tokens and
// duration are its rows'.
func TestSuiteCellsAreTheSharedRows(t *testing.T) {
	root := filepath.Join(t.TempDir(), "runs")
	dir := writeSuite(t, root, t0, []fixtureRun{
		{caseID: "ok", rep: 1, passed: ptr(true), tokens: 100, durationMs: 1000},
		{caseID: "slow", rep: 1, passed: ptr(false), exit: lux.ExitTimeout, reason: "ran out of time:\n  the last step was\tgo test", tokens: 200, durationMs: 3000},
		{caseID: "broken", rep: 1, exit: lux.ExitError, reason: "no agent \x1b[31mhere", tokens: 5, durationMs: 10},
	})
	p, err := Suite(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	type cell struct{ Title, Verdict, Failed, Tokens, Duration string }
	got := map[string]cell{}
	for _, c := range p.Cases {
		var failed string
		for _, f := range c.Failed {
			failed += f.ID + ": " + f.Reason + "; "
		}
		got[c.CaseID] = cell{c.Runs[0].Title, c.Runs[0].Verdict, failed, c.Tokens, c.Duration}
	}
	want := map[string]cell{
		"ok": {"repetition 1: pass, score 1.000", "pass", "", "110", "1.00s"},
		"slow": {"repetition 1: fail (timeout: ran out of time: the last step was go test), score 0.000", "fail",
			"says-hi: hello.txt does not contain \"hi\": --- FAIL: TestHello (0.00s) hello_test.go:9: got " + hostile + " \x1b[31mF…; ", "210", "3.00s"},
		"broken": {"repetition 1: fail (error: no agent \uFFFD[31mhere)", "fail",
			"says-hi: could not grade: could not read hello.txt; ", "15", "10ms"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
