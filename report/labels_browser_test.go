package report

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// In a browser, a run page with labels shows the person's verdict beside
// the grader's, the disagreements marked (a red box, "≠"), and the
// annotator's name and feedback as text that never runs.
func TestBrowserRunLabels(t *testing.T) {
	ctx := browser(t)
	_, dir, set := labelledRun(t)
	p, err := Run(dir, Options{Labels: set})
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctx, chromedp.Navigate(writePageFile(t, t.TempDir(), "run.html", render(t, p))))
	type view struct {
		Pwned       bool     `json:"pwned"`
		Disagreeing []string `json:"disagreeing"` // the marked verdicts' text
		Boxed       bool     `json:"boxed"`       // the first has a border in the fail colour
		RowMarked   int      `json:"rowMarked"`   // label rows marked as disagreeing
		SaysHi      string   `json:"saysHi"`      // the says-hi row's labelled cell
		Feedback    string   `json:"feedback"`
	}
	got := eval[view](t, ctx, `(() => {
		const marked = [...document.querySelectorAll(".label-verdict.disagree")];
		const row = [...document.querySelectorAll("table.assertions tbody tr")].find(r => r.cells[0].textContent.trim() === "says-hi");
		return {
			pwned: window.__pwned !== undefined,
			disagreeing: marked.map(e => e.textContent.trim()),
			boxed: marked.length > 0 && getComputedStyle(marked[0]).borderTopStyle === "solid",
			rowMarked: document.querySelectorAll("tr.label-row.disagree").length,
			saysHi: row ? row.querySelector("td.labelled").textContent : "",
			feedback: document.querySelector(".labels-table .lines").textContent,
		};
	})()`)
	if got.Pwned {
		t.Error("hostile label text ran")
	}
	if len(got.Disagreeing) != 2 || !strings.HasPrefix(got.Disagreeing[0], "≠ pass") || !strings.HasPrefix(got.Disagreeing[1], "≠ pass 0.900") {
		t.Errorf("marked disagreements %q; want the case's and says-hi's of the first label", got.Disagreeing)
	}
	if !got.Boxed {
		t.Error("a disagreement is not boxed")
	}
	if got.RowMarked != 1 {
		t.Errorf("%d label rows marked as disagreeing, want 1", got.RowMarked)
	}
	if !strings.Contains(got.SaysHi, "<i onmouseover=window.__pwned=5>eve</i>") || !strings.Contains(got.SaysHi, "(bob)") || !strings.Contains(got.SaysHi, "not compared") {
		t.Errorf("says-hi's labels read %q", got.SaysHi)
	}
	if !strings.Contains(got.Feedback, hostile) {
		t.Errorf("the feedback reads %q; want the hostile markup as text", got.Feedback)
	}
	eval[bool](t, ctx, `(document.querySelector(".labels").scrollIntoView(), true)`)
	shot(t, ctx, "run-labels.png", chromedp.CaptureScreenshot())
}
