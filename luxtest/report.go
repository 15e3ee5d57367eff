package luxtest

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// runOutcome is one run of a case as its record tells it.
type runOutcome struct {
	repetition int
	dir        string
	verdict    string // a record.Verdict: pass, fail, error, cancelled, not run, ungraded
	meta       *record.Metadata
	grading    *record.Grading
	item       record.SuiteItem
	readErr    error
}

// readRuns reads the record of every run of the case id in a suite.
func readRuns(res *record.Suite, id string) []runOutcome {
	var out []runOutcome
	for _, it := range res.Manifest.Items {
		if it.CaseID != id {
			continue
		}
		r := runOutcome{repetition: it.Repetition, item: it}
		r.verdict = string(it.Verdict())
		if it.RunDir != "" {
			r.dir = filepath.Join(res.Dir, filepath.FromSlash(it.RunDir))
			r.meta, r.grading, r.readErr = record.ReadMetadata(r.dir)
		}
		out = append(out, r)
	}
	return out
}

// passSummary is the log line of a case that passed.
func passSummary(id string, runs []runOutcome, passed int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "luxtest: case %q: %d of %s passed", id, passed, plural(len(runs), "run"))
	for _, r := range runs {
		fmt.Fprintf(&b, "\n  run %d: %s", r.repetition, r.headline())
	}
	return b.String()
}

// failureReport is the failure message of a case that did not pass: every
// run, and for each that did not pass what went wrong and where its
// record is.
func failureReport(id string, runs []runOutcome, passed, need int) string {
	var b strings.Builder
	want := fmt.Sprintf("want all %d", len(runs))
	if need < len(runs) {
		want = fmt.Sprintf("want at least %d", need)
	}
	switch {
	case len(runs) == 0:
		fmt.Fprintf(&b, "luxtest: case %q did not run", id)
	case len(runs) == 1:
		fmt.Fprintf(&b, "luxtest: case %q did not pass", id)
	default:
		fmt.Fprintf(&b, "luxtest: case %q: %d of %d runs passed; %s", id, passed, len(runs), want)
	}
	for _, r := range runs {
		fmt.Fprintf(&b, "\n  run %d: %s", r.repetition, r.headline())
		if r.verdict == "pass" {
			continue
		}
		for _, line := range r.details() {
			b.WriteString("\n    ")
			b.WriteString(line)
		}
		if r.dir != "" {
			fmt.Fprintf(&b, "\n    records: %s", r.dir)
		}
	}
	return b.String()
}

// headline is the verdict, exit reason and score of a run in one line.
func (r runOutcome) headline() string {
	parts := []string{r.verdict}
	exit := r.item.ExitReason
	if r.meta != nil {
		exit = r.meta.ExitReason
	}
	if exit != "" {
		parts = append(parts, "exit "+string(exit))
	}
	if r.item.Score != nil && r.verdict != "ungraded" {
		parts = append(parts, fmt.Sprintf("score %.2f", *r.item.Score))
	}
	return strings.Join(parts, ", ")
}

// details says what went wrong in a run that did not pass.
func (r runOutcome) details() []string {
	var lines []string
	if r.readErr != nil {
		lines = append(lines, "the record could not be read: "+r.readErr.Error())
	}
	m, g := r.meta, r.grading
	switch {
	case m != nil && m.ExitReason != lux.ExitDone:
		line := fmt.Sprintf("the run ended %s", m.ExitReason)
		if m.Reason != "" {
			line += ": " + m.Reason
		}
		lines = append(lines, line)
		if f := m.OperationalFailure; f != nil {
			lines = append(lines, fmt.Sprintf("the harness failed in phase %q: %s", f.Phase, f.Reason))
		}
	case m == nil && r.item.Error != "":
		lines = append(lines, r.item.Error)
	}
	if g != nil {
		for _, a := range g.Assertions {
			label := a.ID
			if a.Name != "" && a.Name != a.ID {
				label += " (" + a.Name + ")"
			}
			switch {
			case a.Error != "":
				lines = append(lines, fmt.Sprintf("UNGRADED %s: could not grade: %s", label, a.Error))
			case !a.Passed:
				line := fmt.Sprintf("FAIL %s: %s", label, orDash(a.Comment))
				if a.Threshold > 0 && a.Score < a.Threshold {
					line += fmt.Sprintf(" (score %.2f below threshold %.2f)", a.Score, a.Threshold)
				}
				lines = append(lines, line)
			}
		}
		if len(g.Assertions) == 0 && m != nil && m.ExitReason == lux.ExitDone {
			lines = append(lines, "the case has no assertions, so it has no verdict; add some (run-succeeded requires only that the run ends done)")
		}
	}
	if m != nil && m.ExitReason != lux.ExitDone && m.StderrTail != "" {
		lines = append(lines, "the agent's stderr ended with:")
		for _, l := range lastLines(m.StderrTail, 10) {
			lines = append(lines, "  | "+l)
		}
	}
	return lines
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// lastLines returns the last n non-empty lines of s.
func lastLines(s string, n int) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
