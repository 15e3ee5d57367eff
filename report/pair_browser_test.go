package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// From a regressed case of a static comparison, two clicks reach the
// failing assertion, the step where the trajectories diverged and the
// workspace diff: the flip list links the case's paired view, whose first
// link jumps to the first differing step.
func TestBrowserPairedView(t *testing.T) {
	ctx := browser(t)
	p := renderFixture(t)
	dir := t.TempDir()
	run(t, ctx, chromedp.Navigate(writePageFile(t, dir, "comparison.html", p.compared)))
	flips := eval[[]string](t, ctx, `[...document.querySelectorAll("#flips tbody tr")].map(r => r.dataset.id)`)
	if len(flips) != 4 {
		t.Fatalf("flip list %v, want the 4 cases that went from pass to fail", flips)
	}
	// Click 1: the flip list's link to the paired view.
	run(t, ctx, chromedp.Click(chromedp.CSS(`#flips tbody tr:first-child a.pair-link`)))
	target := eval[string](t, ctx, `location.hash`)
	if !strings.HasPrefix(target, "#pair-") {
		t.Fatalf("the flip's link went to %q, want a paired view", target)
	}
	sel := `document.querySelector("` + target + `")`
	type pairDOM struct {
		Case     string   `json:"case"`
		Verdicts []string `json:"verdicts"`
		Comment  string   `json:"comment"`
		Steps    int      `json:"steps"`
		Differs  []string `json:"differs"`
		Files    []string `json:"files"`
		Added    []string `json:"added"`
		Binary   string   `json:"binary"`
	}
	got := eval[pairDOM](t, ctx, `(() => { const s = `+sel+`; return {
		case: s.dataset.case,
		verdicts: [...s.querySelectorAll("table.sides td.verdict")].map(td => td.textContent),
		comment: [...s.querySelectorAll("table.pair-assertions tr.changed td:last-child .lines")].map(d => d.innerText).join("\n"),
		steps: s.querySelectorAll("table.steps tbody tr").length,
		differs: [...s.querySelectorAll("table.steps tr.differs")].map(r => r.innerText),
		files: [...s.querySelectorAll("ul.files li")].map(li => li.querySelector("code").textContent + " " + li.querySelector(".status").textContent),
		added: [...s.querySelectorAll("pre.diff .add")].map(x => x.textContent),
		binary: [...s.querySelectorAll("ul.files li")].filter(li => li.textContent.includes("data.bin")).map(li => li.innerText).join(""),
	}; })()`)
	if !strings.HasPrefix(got.Case, "case-") {
		t.Errorf("paired view of %q", got.Case)
	}
	if len(got.Verdicts) != 2 || !strings.HasPrefix(got.Verdicts[0], "pass") || !strings.HasPrefix(got.Verdicts[1], "fail") {
		t.Errorf("verdicts %q, want pass on A and fail on B", got.Verdicts)
	}
	if !strings.Contains(got.Comment, "\n--- FAIL: TestHello (0.00s)\n") {
		t.Errorf("the failed assertion's comment reads %q, want its lines kept", got.Comment)
	}
	// B inserted a Bash call: it has a row of its own, and the steps after
	// it are aligned again (only the inserted row and the steps whose
	// content differs are marked).
	if len(got.Differs) == 0 || !strings.Contains(got.Differs[0], "tool call Bash") {
		t.Errorf("differing steps %q, want the inserted Bash call first", got.Differs)
	}
	for _, d := range got.Differs {
		if strings.Contains(d, "question") {
			t.Errorf("the question after the inserted step is marked as differing: %q", d)
		}
	}
	want := []string{"data.bin changed", "hello.txt changed", "notes.md added", strings.ReplaceAll(hostileName, "\x1b", "\uFFFD") + " added"}
	if strings.Join(got.Files, "|") != strings.Join(want, "|") {
		t.Errorf("workspace files %q, want %q", got.Files, want)
	}
	if !strings.Contains(strings.Join(got.Added, "\n"), "+hi from B "+hostile) {
		t.Errorf("added lines %q, want B's line with the markup as text", got.Added)
	}
	if !strings.Contains(got.Binary, "binary") || !strings.Contains(got.Binary, "SHA-256 ") {
		t.Errorf("binary file shown as %q, want its sizes and hashes", got.Binary)
	}
	shot(t, ctx, "pair.png", chromedp.Screenshot(chromedp.CSS(target)))
	// Click 2: the first differing step.
	run(t, ctx, chromedp.Click(chromedp.CSS(target+` a.to-diverge`)))
	step := eval[string](t, ctx, `document.querySelector(":target").innerText`)
	if !strings.Contains(step, "tool call Bash") {
		t.Errorf("the divergence link shows %q, want the inserted Bash call", step)
	}
	if pwned := eval[bool](t, ctx, `window.__pwned !== undefined`); pwned {
		t.Error("hostile markup ran")
	}
	// Nothing was fetched: the page works with no network.
	if res := eval[[]string](t, ctx, `performance.getEntriesByType("resource").map(e => e.name)`); len(res) != 0 {
		t.Errorf("the page fetched %q", res)
	}
	shot(t, ctx, "pair-diverged.png", chromedp.CaptureScreenshot())
}

// shot saves a screenshot taken by capture (an element's, or the
// viewport's) under the test's artifact directory and logs where.
func shot(t *testing.T, ctx context.Context, name string, capture chromedp.Action[[]byte]) {
	t.Helper()
	png, err := chromedp.Run(ctx, capture)
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(path, png, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}
