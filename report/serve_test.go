package report

import (
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
