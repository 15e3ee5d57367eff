package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/luxeval/lux"
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
	StoppedBy  string   `json:"stoppedBy,omitempty"`
	StopReason string   `json:"stopReason,omitempty"`
	Runs       []RunRow `json:"runs"`
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

// RunRow is one run of a suite as the run table shows it.
type RunRow struct {
	CaseID     string         `json:"caseId"`
	Repetition int            `json:"repetition"`
	Verdict    record.Verdict `json:"verdict"` // pass, fail, error, cancelled, not run, ungraded
	Score      *float64       `json:"score,omitempty"`
	ExitReason lux.ExitReason `json:"exitReason,omitempty"`
	// Reason says, in one line, why a run that did not pass ended as it
	// did (the agent's or the harness's error), when it did not end done,
	// or why it is ungraded.
	Reason string `json:"reason,omitempty"`
	// FailedAssertions are the assertions that did not pass, with why.
	FailedAssertions []FailedAssertion `json:"failedAssertions,omitempty"`
	DurationMS       int64             `json:"durationMs"`
	// AgentTokens is null when the agent reported no usage (unavailable).
	AgentTokens  *int64   `json:"agentTokens"`
	AgentCostUSD *float64 `json:"agentCostUsd,omitempty"`
	// RunDir is the run's directory: relative to the working directory
	// when it is under it, else absolute.
	RunDir string `json:"runDir,omitempty"`
}

// FailedAssertion is an assertion that did not pass: its id and why, in
// one line. Error is set when it could not grade at all. Detail is the
// whole comment or error with its lines kept (a command's output, say),
// cut at 4 KiB; it is left out when Reason already says all of it.
type FailedAssertion struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
	Error  bool   `json:"error,omitempty"`
}

// maxDetail is how many bytes of an assertion's comment a row keeps.
const maxDetail = 4096

// newRunRow builds the row of one run from its suite item and its records
// (m and g nil when it has none).
func newRunRow(caseID string, rep int, v record.Verdict, runDir string, m *record.Metadata, g *record.Grading, itemErr string) RunRow {
	row := RunRow{CaseID: caseID, Repetition: rep, Verdict: v, RunDir: displayPath(runDir)}
	if v == record.VerdictUngraded && g != nil && len(g.Assertions) == 0 {
		row.Reason = `ungraded: the case has no assertions; add one, such as {"type": "run-succeeded"}`
	}
	if m != nil {
		row.ExitReason = m.ExitReason
		row.DurationMS = m.Duration().Milliseconds()
		if u := m.Usage.Agent; u != nil {
			n := u.Total()
			row.AgentTokens = &n
		}
		row.AgentCostUSD = m.Usage.AgentCostUSD
		if m.ExitReason != lux.ExitDone {
			row.Reason = oneLine(m.Reason, 200)
		}
	}
	if row.Reason == "" && v != record.VerdictPass && itemErr != "" {
		row.Reason = oneLine(itemErr, 200)
	}
	if g != nil {
		row.Score = g.Score
		row.FailedAssertions = failedAssertions(g)
	}
	return row
}

func failedAssertions(g *record.Grading) []FailedAssertion {
	var out []FailedAssertion
	for _, a := range g.Assertions {
		if a.Passed && a.Error == "" {
			continue
		}
		id := a.ID
		if id == "" {
			id = a.Name
		}
		f := FailedAssertion{ID: id}
		switch {
		case a.Error != "":
			f.Reason, f.Error = "could not grade: "+oneLine(a.Error, 160), true
			f.Detail = "could not grade: " + keepLines(a.Error, maxDetail)
		case a.Comment != "":
			f.Reason = oneLine(a.Comment, 160)
			f.Detail = keepLines(a.Comment, maxDetail)
		default:
			f.Reason = fmt.Sprintf("score %.2f below its threshold %.2f", a.Score, a.Threshold)
		}
		if f.Detail == f.Reason {
			f.Detail = ""
		}
		out = append(out, f)
	}
	return out
}

// displayPath is path as a user can use it from the working directory.
var displayPath = casefiles.DisplayPath

// newSuiteReport reads the records of the suite's runs into its rows.
func newSuiteReport(dir string, m *record.SuiteManifest, s *record.SuiteSummary) SuiteReport {
	rep := SuiteReport{Schema: "lux.suite/v1", Dir: displayPath(dir), SuiteID: m.SuiteID, Status: m.LiveStatus(), Runs: []RunRow{},
		Label: m.Label, GitBranch: m.GitBranch}
	if m.EndedAt != nil {
		rep.DurationMS = m.EndedAt.Sub(m.StartedAt).Milliseconds()
	}
	if m.StoppedBy != "" {
		rep.StoppedBy, rep.StopReason = m.StoppedBy, m.Error
	}
	suite := &record.Suite{Dir: dir, Manifest: m, Summary: s}
	for i, it := range m.Items {
		runDir := suite.RunDir(i)
		var meta *record.Metadata
		var g *record.Grading
		if runDir != "" && it.Status == record.ItemCompleted {
			meta, g, _ = record.ReadMetadata(runDir)
		}
		row := newRunRow(it.CaseID, it.Repetition, it.Verdict(), runDir, meta, g, it.Error)
		if row.AgentTokens != nil {
			rep.AgentTokens = addTokens(rep.AgentTokens, *row.AgentTokens)
		}
		rep.Runs = append(rep.Runs, row)
	}
	if s != nil {
		rep.Totals = &s.Totals
	}
	rep.PassK = record.SuitePassK(m.Items, m.Repetitions)
	return rep
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
		if r.Verdict != record.VerdictNotRun {
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
		lines := r.problemLines()
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
func (r RunRow) problemLines() []string {
	var out []string
	if r.Reason != "" {
		out = append(out, r.Reason)
	}
	for _, f := range r.FailedAssertions {
		mark := "✗"
		if f.Error {
			mark = "!"
		}
		why := f.Reason
		if f.Detail != "" {
			why = f.Detail
		}
		out = append(out, fmt.Sprintf("%s %s: %s", mark, f.ID, why))
	}
	return out
}

// indent prints a problem line at prefix, its continuation lines four
// spaces further in.
func indent(w io.Writer, prefix, line string) {
	fmt.Fprintf(w, "%s%s\n", prefix, strings.ReplaceAll(line, "\n", "\n"+prefix+"    "))
}

// keepLines is s with its lines kept, for a terminal or a report: CRLF
// and lone CRs become newlines, trailing blanks and blank ends go, other
// control characters (an escape sequence) are shown as U+FFFD, and it is
// cut at max bytes on a character boundary, saying so.
func keepLines(s string, max int) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(strings.Map(func(r rune) rune {
			if r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)) {
				return '\uFFFD'
			}
			return r
		}, l), " \t")
	}
	s = strings.Trim(strings.Join(lines, "\n"), "\n")
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + fmt.Sprintf("… [cut: %d more bytes]", len(s)-cut)
	}
	return s
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
		r := newRunRow(u.CaseID, u.Repetition, u.Verdict, u.RunDir, u.Metadata, u.Grading, errText)
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
