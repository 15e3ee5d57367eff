package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/luxeval/lux/internal/casefiles"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// SuiteReport is what `lux run -json` and `lux view -json SUITE_DIR` print.
type SuiteReport struct {
	Schema  string             `json:"schema"` // "lux.suite/v1"
	Dir     string             `json:"dir"`
	SuiteID string             `json:"suiteId"`
	Status  record.SuiteStatus `json:"status"`
	// Label is the suite's label (lux run -label), GitBranch the git
	// branch of the working directory it ran in; absent when unknown.
	Label     string `json:"label,omitempty"`
	GitBranch string `json:"gitBranch,omitempty"`
	// StoppedBy and StopReason say what stopped the suite from starting
	// all its runs, other than a cancellation ("budget"), and why.
	StoppedBy  string `json:"stoppedBy,omitempty"`
	StopReason string `json:"stopReason,omitempty"`
	// CleanupError is why a suite-level hook's cleanup failed after the
	// runs ended (suite.json's cleanupError); the verdicts stand.
	CleanupError string          `json:"cleanupError,omitempty"`
	Runs         []record.RunRow `json:"runs"`
	// Totals counts the runs by verdict; its passRate is over the graded
	// (pass or fail) runs only. Absent when the suite never finished.
	Totals *record.Outcome `json:"totals,omitempty"`
	// PassK is pass@k and pass^k for k = the suite's repetitions, when
	// they are more than one (see record.PassK).
	PassK *record.PassK `json:"passK,omitempty"`
	// AgentTokens is the sum over the runs that reported usage; null when
	// none did.
	AgentTokens *int64 `json:"agentTokens"`
	// DurationMS is the suite's wall-clock time, start to end (so far,
	// for a suite that has not ended).
	DurationMS int64 `json:"durationMs"`
}

// displayPath is path as a user can use it from the working directory.
var displayPath = casefiles.DisplayPath

// newSuiteReport reads the records of the suite's runs into its rows.
func newSuiteReport(suite *record.Suite) SuiteReport {
	rep, _, _ := newSuiteReportChecked(suite)
	return rep
}

// newSuiteReportChecked is newSuiteReport, with the first run record that
// must not be read (changed since it was sealed, or under a key that
// cannot be used) and how many there are: their rows hold only what the
// suite's own record says.
func newSuiteReportChecked(suite *record.Suite) (rep SuiteReport, refusedRuns int, refused error) {
	dir, m, s := suite.Dir, suite.Manifest, suite.Summary
	rep = SuiteReport{Schema: "lux.suite/v1", Dir: displayPath(dir), SuiteID: m.SuiteID, Status: m.LiveStatus(), Runs: []record.RunRow{},
		Label: m.Label, GitBranch: m.GitBranch}
	if m.EndedAt != nil {
		rep.DurationMS = m.EndedAt.Sub(m.StartedAt).Milliseconds()
	}
	if m.StoppedBy != "" {
		rep.StoppedBy, rep.StopReason = m.StoppedBy, m.Error
	}
	rep.CleanupError = m.CleanupError
	for i := range m.Items {
		row, err := suite.ItemRow(i, displayPath(suite.RunDir(i))) // as written, when the suite was just run
		if errors.Is(err, record.ErrSealBroken) || errors.Is(err, record.ErrSealKey) {
			if refusedRuns++; refused == nil {
				refused = err
			}
		}
		if row.AgentTokens != nil {
			rep.AgentTokens = addTokens(rep.AgentTokens, *row.AgentTokens)
		}
		rep.Runs = append(rep.Runs, row)
	}
	if s != nil {
		rep.Totals = &s.Totals
	}
	rep.PassK = record.SuitePassK(m.Items, m.Repetitions)
	return rep, refusedRuns, refused
}

func addTokens(sum *int64, n int64) *int64 {
	if sum == nil {
		return &n
	}
	v := *sum + n
	return &v
}

func verdictText(v record.Verdict) string {
	switch v {
	case record.VerdictFail:
		return "FAIL"
	case record.VerdictError:
		return "ERROR"
	}
	return string(v)
}

func tokenCount(n *int64) string {
	if n == nil {
		return "unavailable"
	}
	return fmt.Sprint(*n)
}

func durationText(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).Round(10 * time.Millisecond).String()
}

// writeText prints the run table, what went wrong in each run that did
// not pass, and the totals.
func (rep SuiteReport) writeText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tREP\tVERDICT\tSCORE\tEXIT\tDURATION\tTOKENS\tRUN")
	for _, r := range rep.Runs {
		score, exit, dur, tokens, dir := "-", "-", "-", "-", r.RunDir
		if r.Score != nil {
			score = fmt.Sprintf("%.2f", *r.Score)
		}
		if r.Verdict != record.VerdictNotRun && r.RecordError == "" {
			dur, tokens = durationText(r.DurationMS), tokenCount(r.AgentTokens)
		}
		if r.ExitReason != "" {
			exit = string(r.ExitReason)
		}
		if dir == "" {
			dir = "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.CaseID, r.Repetition, verdictText(r.Verdict), score, exit, dur, tokens, dir)
	}
	tw.Flush()
	first := true
	for _, r := range rep.Runs {
		lines := problemLines(r)
		if len(lines) == 0 {
			continue
		}
		if first {
			fmt.Fprintln(w)
			first = false
		}
		fmt.Fprintf(w, "%s #%d: %s\n", r.CaseID, r.Repetition, verdictText(r.Verdict))
		for _, l := range lines {
			indent(w, "  ", l)
		}
	}
	if t := rep.Totals; t != nil {
		fmt.Fprintf(w, "\n%s\n", totalsLine(*t))
	}
	if rep.PassK != nil {
		fmt.Fprintln(w, rep.PassK.Text())
	}
	fmt.Fprintf(w, "took %s; agent tokens: %s\n", durationText(rep.DurationMS), tokenCount(rep.AgentTokens))
	fmt.Fprintf(w, "records: %s\n", rep.Dir)
	if rep.CleanupError != "" {
		fmt.Fprintf(w, "suite hook cleanup failed: %s\n", rep.CleanupError)
	}
	if rep.Label != "" || rep.GitBranch != "" {
		var parts []string
		if rep.Label != "" {
			parts = append(parts, "label: "+rep.Label)
		}
		if rep.GitBranch != "" {
			parts = append(parts, "git branch: "+rep.GitBranch)
		}
		fmt.Fprintln(w, strings.Join(parts, "; "))
	}
}

// problemLines are the lines that say why r did not pass; an assertion's
// item holds its whole comment, its lines separated by "\n" (indent
// prints them under the item).
func problemLines(r record.RunRow) []string {
	var out []string
	if r.RecordError != "" {
		out = append(out, "its record cannot be read: "+r.RecordError)
	}
	if r.Reason != "" {
		out = append(out, r.Reason)
	}
	for _, f := range r.FailedAssertions {
		mark := "✗"
		if f.Error {
			mark = "!"
		}
		out = append(out, fmt.Sprintf("%s %s: %s", mark, f.ID, f.Text()))
	}
	return out
}

// indent prints a problem line at prefix, its continuation lines four
// spaces further in.
func indent(w io.Writer, prefix, line string) {
	fmt.Fprintf(w, "%s%s\n", prefix, strings.ReplaceAll(line, "\n", "\n"+prefix+"    "))
}

// totalsLine counts the runs by verdict, naming only the verdicts that
// occur beyond pass and fail, and gives the pass rate over graded runs.
func totalsLine(t record.Outcome) string {
	parts := []string{fmt.Sprintf("%d passed", t.Passed), fmt.Sprintf("%d failed", t.Failed)}
	for _, c := range []struct {
		n    int
		what string
	}{{t.Errored, "error"}, {t.Cancelled, "cancelled"}, {t.Pending, "not run"}, {t.Ungraded, "ungraded"}} {
		if c.n > 0 {
			what := c.what
			if what == "error" && c.n > 1 {
				what = "errors"
			}
			parts = append(parts, fmt.Sprintf("%d %s", c.n, what))
		}
	}
	rate := "no graded runs, no pass rate"
	if t.Graded > 0 {
		rate = fmt.Sprintf("pass rate %.1f%% of %d graded", 100*t.PassRate, t.Graded)
	}
	return fmt.Sprintf("%d runs: %s (%s)", t.Attempts, strings.Join(parts, ", "), rate)
}

// progressPrinter prints one line per finished run on w: its verdict, and
// for a run that did not pass, its directory. Why it did not pass is told
// once, by the results table at the end.
func progressPrinter(w io.Writer) func(orchestrator.Update) {
	return func(u orchestrator.Update) {
		if u.Kind != orchestrator.RunFinished {
			return
		}
		errText := ""
		if u.Err != nil {
			errText = u.Err.Error()
		}
		r := record.NewRunRow(u.CaseID, u.Repetition, u.Verdict, displayPath(u.RunDir), u.Metadata, u.Grading, errText)
		fmt.Fprintf(w, "[%d/%d] %-9s %s #%d (%s", u.Done, u.Total, verdictText(r.Verdict), r.CaseID, r.Repetition, durationText(r.DurationMS))
		if r.AgentTokens != nil {
			fmt.Fprintf(w, ", %d tokens", *r.AgentTokens)
		}
		fmt.Fprint(w, ")")
		if r.Verdict != record.VerdictPass && r.RunDir != "" {
			fmt.Fprintf(w, " %s", r.RunDir)
		}
		fmt.Fprintln(w)
	}
}
