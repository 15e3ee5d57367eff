package report

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/luxeval/lux/record"
)

// A served suite still running shows its progress and reloads once its
// record changes: a run that finishes appears without the person
// reloading, and once the suite ends the page stops asking.
func TestBrowserLiveSuite(t *testing.T) {
	ctx := browser(t)
	root := filepath.Join(t.TempDir(), "runs")
	dir := writeSuite(t, root, t0, []fixtureRun{
		{caseID: "a", rep: 1, passed: ptr(true), durationMs: 10},
		{caseID: "b", rep: 1, passed: ptr(false), durationMs: 10},
		{caseID: "late", rep: 1, passed: ptr(true), durationMs: 10},
	})
	s, err := record.ReadSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	final := *s.Manifest
	running := final
	running.Status, running.EndedAt = record.SuiteRunning, nil
	running.Items = append([]record.SuiteItem(nil), final.Items...)
	running.Items[2].Status, running.Items[2].RunDir = record.ItemPending, ""
	w := record.Writer{}
	if err := w.WriteJSON(filepath.Join(dir, record.SuiteFile), &running); err != nil {
		t.Fatal(err)
	}
	summary := filepath.Join(dir, record.SuiteSummaryFile)
	saved, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(summary); err != nil { // a running suite has no summary yet
		t.Fatal(err)
	}
	srv := httptest.NewServer(newHandler(root, Options{}, 20*time.Millisecond, 2*time.Second))
	t.Cleanup(srv.Close)
	rel, _ := filepath.Rel(root, dir)
	run(t, ctx, chromedp.Navigate(srv.URL+"/suite?d="+filepath.ToSlash(rel)), chromedp.WaitVisible(chromedp.ID("live")))
	live := eval[string](t, ctx, `document.getElementById("live").textContent`)
	if !strings.Contains(live, "2 of 3 runs finished") {
		t.Errorf("the live line says %q, want 2 of 3 runs finished", live)
	}
	if v := eval[string](t, ctx, `document.querySelector('#cases tr[data-id="late"]').dataset.verdict`); v != "not-run" {
		t.Errorf("the case yet to run is %q, want not-run", v)
	}
	shot(t, ctx, "live-running.png", chromedp.CaptureScreenshot())
	eval[bool](t, ctx, `(window.__before = true)`)

	// The last run finishes and the suite ends.
	if err := w.WriteJSON(filepath.Join(dir, record.SuiteFile), &final); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(summary, saved, 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#cases tr[data-id="late"] a.cell.pass`)))
	if eval[bool](t, ctx, `window.__before === true`) {
		t.Error("the page changed without reloading")
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#live").length`); n != 0 {
		t.Error("the suite ended, yet the page still shows the live line")
	}
	shot(t, ctx, "live-ended.png", chromedp.CaptureScreenshot())
}
