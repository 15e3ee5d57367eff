package report

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/luxeval/lux/record"
)

// The suite's own errors, beside its runs' verdicts, are on its page: why
// it stopped, and a suite hook's cleanup failure (suite.json's
// cleanupError).
func TestSuitePageShowsTheSuitesOwnErrors(t *testing.T) {
	root := filepath.Join(t.TempDir(), "runs")
	dir := writeSuite(t, root, t0, []fixtureRun{{caseID: "a", rep: 1, passed: ptr(true), durationMs: 10}}, func(m *record.SuiteManifest) {
		m.Error = "the maxRuns budget is used up"
		m.StoppedBy = record.StoppedByBudget
		m.CleanupError = `hook "postgres": cleanup: stop the server: <exit status 1>`
	})
	p, err := Suite(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Fact{
		{"stopped by", "budget"},
		{"error", "the maxRuns budget is used up"},
		{"suite hook cleanup failed", `hook "postgres": cleanup: stop the server: <exit status 1> (the runs' verdicts stand; what the hooks started may still be running)`},
	}
	if d := cmp.Diff(want, p.Errors); d != "" {
		t.Errorf("suite errors (-want +got):\n%s", d)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, p); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	i := strings.Index(html, `id="suite-errors"`)
	if i < 0 {
		t.Fatalf("the page has no suite errors section")
	}
	for _, s := range []string{"suite hook cleanup failed", "stop the server: &lt;exit status 1&gt;", "the maxRuns budget is used up"} {
		if !strings.Contains(html[i:], s) {
			t.Errorf("the suite errors section lacks %q", s)
		}
	}

	// A suite without errors has no such section.
	clean := writeSuite(t, root, t0.Add(1e9), []fixtureRun{{caseID: "a", rep: 1, passed: ptr(true), durationMs: 10}})
	p, err = Suite(context.Background(), clean, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := WriteHTML(&b, p); err != nil {
		t.Fatal(err)
	}
	if len(p.Errors) != 0 || strings.Contains(b.String(), `id="suite-errors"`) {
		t.Errorf("a suite without errors shows %v", p.Errors)
	}
}
