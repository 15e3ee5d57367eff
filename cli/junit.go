package cli

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"

	"github.com/luxeval/lux/record"
)

// JUnit XML, the report format CI systems show as tests: one testsuite per
// lux suite, one testcase per run (classname the case id, name its
// repetition). A fail is a <failure>, an error an <error>, a cancelled or
// not-run run is <skipped>.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string          `xml:"name,attr"`
	Tests    int             `xml:"tests,attr"`
	Failures int             `xml:"failures,attr"`
	Errors   int             `xml:"errors,attr"`
	Skipped  int             `xml:"skipped,attr"`
	Time     string          `xml:"time,attr"`
	Props    []junitProperty `xml:"properties>property,omitempty"`
	Cases    []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func seconds(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }

// junitOf is the JUnit document of a suite report.
func junitOf(rep SuiteReport) junitSuites {
	s := junitSuite{Name: "lux " + rep.SuiteID, Props: []junitProperty{{"records", rep.Dir}}}
	var total int64
	for _, r := range rep.Runs {
		total += r.DurationMS
		c := junitCase{Classname: r.CaseID, Name: fmt.Sprintf("repetition %d", r.Repetition), Time: seconds(r.DurationMS)}
		if r.RunDir != "" {
			c.SystemOut = "run: " + r.RunDir
		}
		detail := strings.Join(problemLines(r), "\n")
		summary := detail
		if i := strings.IndexByte(summary, '\n'); i >= 0 {
			summary = summary[:i]
		}
		switch r.Verdict {
		case record.VerdictFail:
			s.Failures++
			c.Failure = &junitProblem{Message: summary, Type: "fail", Text: detail}
		case record.VerdictError:
			s.Errors++
			c.Error = &junitProblem{Message: summary, Type: "error", Text: detail}
		case record.VerdictCancelled, record.VerdictNotRun, record.VerdictUngraded:
			s.Skipped++
			c.Skipped = &junitProblem{Message: string(r.Verdict)}
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	s.Time = seconds(total)
	return junitSuites{Suites: []junitSuite{s}}
}

// writeJUnit writes the suite's JUnit XML to path.
func writeJUnit(path string, rep SuiteReport) error {
	b, err := xml.MarshalIndent(junitOf(rep), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}
