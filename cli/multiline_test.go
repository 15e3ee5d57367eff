package cli

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/textline"
	"github.com/luxeval/lux/record"
)

// goTestFailure is an assertion's comment as a command's output gives it:
// several lines that only read in their lines.
const goTestFailure = "go test ./... failed:\n--- FAIL: TestAbs (0.00s)\n    abs_test.go:9: Abs(-2) = -2, want 2\nFAIL"

func multiLineRow() record.RunRow {
	g := &record.Grading{Passed: new(bool), Assertions: []record.AssertionOutcome{
		{ID: "tests-pass", Name: "tests-pass", Comment: goTestFailure},
	}}
	return record.NewRunRow("add-abs", 1, record.VerdictFail, "", &record.Metadata{ExitReason: lux.ExitDone}, g, "")
}

// The run table keeps a multi-line comment's lines, each continuation
// indented under the assertion it belongs to.
func TestSuiteTableKeepsLines(t *testing.T) {
	var out bytes.Buffer
	SuiteReport{Runs: []record.RunRow{multiLineRow()}}.writeText(&out)
	want := "add-abs #1: FAIL\n" +
		"  ✗ tests-pass: go test ./... failed:\n" +
		"      --- FAIL: TestAbs (0.00s)\n" +
		"          abs_test.go:9: Abs(-2) = -2, want 2\n" +
		"      FAIL\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("the table says\n%s\nwant it to hold\n%s", out.String(), want)
	}
}

// JUnit's failure body holds the whole comment, line by line; its message
// is the first line.
func TestJUnitKeepsLines(t *testing.T) {
	b, err := xml.Marshal(junitOf(SuiteReport{Runs: []record.RunRow{multiLineRow()}}))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []struct {
			Failure struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	f := doc.Cases[0].Failure
	if want := "✗ tests-pass: " + goTestFailure; f.Text != want {
		t.Errorf("failure body %q, want %q", f.Text, want)
	}
	if want := "✗ tests-pass: go test ./... failed:"; f.Message != want {
		t.Errorf("failure message %q, want %q", f.Message, want)
	}
}

// A control character in a comment (an escape sequence that would drive
// the terminal) is shown as U+FFFD; carriage returns end lines.
func TestSuiteTableNeutralizesControls(t *testing.T) {
	got := textline.Keep("red \x1b[31mtext\r\nnext\x07 ", 100)
	if want := "red \uFFFD[31mtext\nnext\uFFFD"; got != want {
		t.Errorf("keepLines = %q, want %q", got, want)
	}
}

// lux view RUN keeps a failed assertion's lines too, indented under it.
func TestRunDetailKeepsLines(t *testing.T) {
	r := &record.Run{Metadata: &record.Metadata{CaseID: "add-abs", ExitReason: lux.ExitDone}, Grading: &record.Grading{
		Passed: new(bool), Assertions: []record.AssertionOutcome{{ID: "tests-pass", Name: "tests-pass", Comment: goTestFailure}},
	}}
	var out bytes.Buffer
	writeRunDetail(&out, r, viewOptions{})
	want := "  ✗ tests-pass (0.00) — go test ./... failed:\n" +
		"      --- FAIL: TestAbs (0.00s)\n" +
		"          abs_test.go:9: Abs(-2) = -2, want 2\n" +
		"      FAIL\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("lux view says\n%s\nwant it to hold\n%s", out.String(), want)
	}
}
