package report

import (
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/luxeval/lux/record"
)

// A served suite links a flaky case to the paired view of a passing and a
// failing repetition, and that view to both runs.
func TestServedFlakyPair(t *testing.T) {
	root := filepath.Join(t.TempDir(), "runs")
	dir := writeSuite(t, root, t0, []fixtureRun{
		{caseID: "flaky", rep: 1, passed: ptr(true), durationMs: 10},
		{caseID: "flaky", rep: 2, passed: ptr(false), durationMs: 10, extraTool: true},
	})
	srv := httptest.NewServer(Handler(root, Options{}))
	t.Cleanup(srv.Close)
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s: %s", path, resp.Status, b)
		}
		return string(b)
	}
	rel, _ := filepath.Rel(root, dir)
	page := get("/suite?d=" + filepath.ToSlash(rel))
	m := regexp.MustCompile(`class="pair-link" href="(/pair\?[^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the flaky case does not link a paired view")
	}
	pair := get(html.UnescapeString(m[1]))
	for _, want := range []string{`<body data-kind="pair">`, "repetition 1 against repetition 2", `class="run-link" href="/run?`, "tool call Bash"} {
		if !strings.Contains(pair, want) {
			t.Errorf("the paired view does not hold %q", want)
		}
	}
}

// The served index shows each suite's label and git branch, a suite with
// repetitions its pass@k and pass^k with their method, and, with
// Options.Labels, a run's page the labels of its run.
func TestServedLabelsAndPassK(t *testing.T) {
	root, runDir, set := labelledRun(t)
	dir := writeSuite(t, root, t0.Add(time.Hour), []fixtureRun{
		{caseID: "flaky", rep: 1, passed: ptr(true), durationMs: 10},
		{caseID: "flaky", rep: 2, passed: ptr(false), durationMs: 10},
	}, func(m *record.SuiteManifest) { m.Label, m.GitBranch = "nightly", "feature/<b>x</b>" })
	srv := httptest.NewServer(Handler(root, Options{Labels: set}))
	t.Cleanup(srv.Close)
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s: %s", path, resp.Status, b)
		}
		return string(b)
	}
	rel := func(d string) string { r, _ := filepath.Rel(root, d); return url.QueryEscape(filepath.ToSlash(r)) }
	for path, wants := range map[string][]string{
		"/":                     {"<td>nightly</td><td>feature/&lt;b&gt;x&lt;/b&gt;</td>"},
		"/suite?d=" + rel(dir):  {`<dd id="pass-k">pass@2 100.0%, pass^2 0.0% (mean over 1 case`, "method: mean over cases of the unbiased estimators", `<code id="suite-label">nightly</code>`},
		"/run?d=" + rel(runDir): {`<tr class="label-row disagree">`, "&lt;i onmouseover=window.__pwned=5&gt;eve&lt;/i&gt;"},
	} {
		page := get(path)
		for _, want := range wants {
			if !strings.Contains(page, want) {
				t.Errorf("GET %s does not hold %q", path, want)
			}
		}
	}
}
