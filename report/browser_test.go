package report

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/chromedp/chromedp"
	"github.com/luxeval/lux/compare"
)

// The browser tests open the pages in a real headless Chromium, driven
// over the DevTools protocol by chromedp, and look at the DOM as a person's
// browser builds it.

// chromium returns the path of a Chromium or Chrome binary. Without one the
// test is skipped, except under CI, whose script installs Debian's
// chromium: there a missing browser is a failure.
func chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH under CI: .ci/run installs Debian's chromium package; check that step")
	}
	t.Skip("skipping the browser test: chromium is not installed (apt-get install chromium)")
	return ""
}

// browser starts a headless Chromium for the test and returns a context
// of one tab. The deadline is only a safety net against a hung browser.
func browser(t testing.TB) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1280, 1000), chromedp.Flag("allow-file-access-from-files", false))
	ctx, cancel := ctxtest.Safety(t)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return bctx
}

// writePage writes b to dir/name and returns its file URL.
func writePageFile(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return "file://" + path
}

// screenshot saves the whole page as a PNG under the test's artifact
// directory (kept with go test -artifacts) and logs where.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100) /* 100: PNG */)
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(path, png, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the %s page: %s", strings.TrimSuffix(name, filepath.Ext(name)), path)
}

func run(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression in the page and decodes its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %.60q: %v", expr, err)
	}
	return v
}

// The forest plot has one mark per effect with an interval, at the
// effect's estimate on its row's scale, its bar from the interval's lower
// to its upper end, and the zero line in the middle.
func TestBrowserForestPlot(t *testing.T) {
	ctx := browser(t)
	root := filepath.Join(t.TempDir(), "runs")
	a, b := pairSuites(t, root, 12, 2, map[int]bool{1: true, 4: true, 7: true, 9: true})
	c, err := compare.Suites(context.Background(), a, b, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	url := writePageFile(t, t.TempDir(), "comparison.html", render(t, Comparison(c)))
	type mark struct {
		Label  string  `json:"label"`
		Scale  float64 `json:"scale"`
		Marks  int     `json:"marks"`
		CX     float64 `json:"cx"`
		Lo     float64 `json:"lo"`
		Hi     float64 `json:"hi"`
		HasBar bool    `json:"hasBar"`
		Value  string  `json:"value"`
	}
	type forest struct {
		Zero float64 `json:"zero"`
		X0   float64 `json:"x0"`
		X1   float64 `json:"x1"`
		Rows []mark  `json:"rows"`
	}
	var got forest
	run(t, ctx, chromedp.Navigate(url))
	got = eval[forest](t, ctx, `(() => {
		const svg = document.getElementById("forest-effects");
		const zero = svg.querySelector("line.zero");
		const axis = svg.querySelector("line.axis");
		return {
			zero: +zero.getAttribute("x1"), x0: +axis.getAttribute("x1"), x1: +axis.getAttribute("x2"),
			rows: [...svg.querySelectorAll("g.row")].map(g => {
				const c = g.querySelectorAll("circle.est"), bar = g.querySelector("line.ci");
				return {
					label: g.dataset.label, scale: +g.dataset.scale, marks: c.length,
					cx: c.length ? +c[0].getAttribute("cx") : 0,
					hasBar: !!bar, lo: bar ? +bar.getAttribute("x1") : 0, hi: bar ? +bar.getAttribute("x2") : 0,
					value: (g.querySelector("text.value") || {}).textContent || "",
				};
			}),
		};
	})()`)
	var effects []compare.Effect // those plotted: a metric no case changed is a line of text
	for _, e := range c.Effects {
		if !e.NoChange {
			effects = append(effects, e)
		}
	}
	if len(got.Rows) != len(effects) {
		t.Fatalf("the plot has %d rows, want one per effect with a change (%d)", len(got.Rows), len(effects))
	}
	if mid := (got.X0 + got.X1) / 2; math.Abs(got.Zero-mid) > 1e-9 {
		t.Errorf("zero line at x=%v, want the middle of the axis %v", got.Zero, mid)
	}
	half := (got.X1 - got.X0) / 2
	at := func(v, scale float64) float64 { return got.Zero + v/scale*half }
	for i, e := range effects {
		r := got.Rows[i]
		if r.Label != compare.MetricLabel(e.Metric) {
			t.Errorf("row %d is %q, want %q", i, r.Label, compare.MetricLabel(e.Metric))
		}
		if e.Interval == nil {
			if r.Marks != 0 {
				t.Errorf("%s: %d marks for an effect without an interval", r.Label, r.Marks)
			}
			continue
		}
		if r.Marks != 1 || !r.HasBar {
			t.Fatalf("%s: %d marks, bar %v; want one mark and one bar", r.Label, r.Marks, r.HasBar)
		}
		if want := at(e.Delta, r.Scale); math.Abs(r.CX-want) > 1e-6 {
			t.Errorf("%s: mark at x=%v, want %v (estimate %v on a ±%v axis)", r.Label, r.CX, want, e.Delta, r.Scale)
		}
		if wantLo, wantHi := at(e.Interval.Lower, r.Scale), at(e.Interval.Upper, r.Scale); math.Abs(r.Lo-wantLo) > 1e-6 || math.Abs(r.Hi-wantHi) > 1e-6 {
			t.Errorf("%s: bar from %v to %v, want %v to %v", r.Label, r.Lo, r.Hi, wantLo, wantHi)
		}
		if (e.Delta < 0) != (r.CX < got.Zero) && e.Delta != 0 {
			t.Errorf("%s: estimate %v drawn on the wrong side of 0", r.Label, e.Delta)
		}
		if !strings.Contains(r.Value, compare.FormatDelta(e.Unit, e.Delta)) {
			t.Errorf("%s: the value beside the mark is %q, want it to say %s", r.Label, r.Value, compare.FormatDelta(e.Unit, e.Delta))
		}
	}
	screenshot(t, ctx, "comparison.png")
}

// The filters hide the rows that do not match, and sorting reorders them.
func TestBrowserSuiteFilters(t *testing.T) {
	ctx := browser(t)
	p := renderFixture(t)
	url := writePageFile(t, t.TempDir(), "suite.html", p.suite)
	visible := func() []string {
		return eval[[]string](t, ctx, `[...document.querySelectorAll("#cases tbody tr")].filter(r => !r.hidden && r.offsetParent !== null).map(r => r.dataset.id)`)
	}
	set := func(id, value string) {
		run(t, ctx, chromedp.SetValue(chromedp.ID(id), value))
		eval[bool](t, ctx, `document.getElementById("`+id+`").dispatchEvent(new Event("change"))`)
	}
	run(t, ctx, chromedp.Navigate(url))
	if n := len(visible()); n != 12 {
		t.Fatalf("%d rows visible before filtering, want 12", n)
	}
	set("f-verdict", "fail")
	got := visible()
	if len(got) != 4 {
		t.Errorf("verdict=fail shows %v, want the 4 failing cases", got)
	}
	for _, id := range got {
		if !strings.HasPrefix(id, "case-01") && id != "case-04" && id != "case-07" && id != "case-09" {
			t.Errorf("verdict=fail shows %q, which passed", id)
		}
	}
	set("f-tag", "slow") // odd cases: 01, 07, 09 of the failing ones
	if got := visible(); len(got) != 3 {
		t.Errorf("verdict=fail, tag=slow shows %v, want 3 cases", got)
	}
	set("f-cluster", "repo-1") // 01, 07 (and 04, which is not slow)
	if got := visible(); len(got) != 2 {
		t.Errorf("verdict=fail, tag=slow, cluster=repo-1 shows %v, want 2 cases", got)
	}
	shown := eval[string](t, ctx, `document.getElementById("shown").textContent`)
	if shown != "2 of 12 cases shown" {
		t.Errorf("the count says %q", shown)
	}
	set("f-verdict", "")
	set("f-tag", "")
	set("f-cluster", "")
	set("f-failed", "says-hi") // the assertion that failed, in the 4 failing cases
	if got := visible(); len(got) != 4 {
		t.Errorf("failed assertion says-hi shows %v, want the 4 failing cases", got)
	}
	set("f-failed", "")
	set("f-tokens", "200") // 100 + 10·c input tokens, +10 output: cases 09, 10 and 11
	if got := visible(); strings.Join(got, ",") != "case-09,case-10,case-11" {
		t.Errorf("tokens ≥ 200 shows %v, want case-09, case-10 and case-11", got)
	}
	set("f-tokens", "")
	set("f-duration", "2000") // 1000 + 100·c ms: case-10 and case-11
	if got := visible(); strings.Join(got, ",") != "case-10,case-11" {
		t.Errorf("duration ≥ 2000 ms shows %v, want case-10 and case-11", got)
	}
	set("f-duration", "")
	run(t, ctx, chromedp.Click(chromedp.CSS(`th[data-sort="duration"]`)), chromedp.Click(chromedp.CSS(`th[data-sort="duration"]`)))
	if got := visible(); len(got) != 12 || got[0] != "case-11" || got[11] != "case-00" {
		t.Errorf("sorted by duration, longest first: %v", got)
	}
	screenshot(t, ctx, "suite.png")
	set("f-failed", "says-hi")
	eval[bool](t, ctx, `(document.getElementById("case-section").scrollIntoView(), true)`)
	shot(t, ctx, "suite-filtered.png", chromedp.CaptureScreenshot())

	// The comparison's tables filter and sort too.
	run(t, ctx, chromedp.Navigate(writePageFile(t, t.TempDir(), "comparison.html", p.compared)))
	paired := func() []string {
		return eval[[]string](t, ctx, `[...document.querySelectorAll("#paired tbody tr")].filter(r => !r.hidden).map(r => r.dataset.id)`)
	}
	run(t, ctx, chromedp.SetValue(chromedp.CSS(`.filters[data-table="paired"] select[data-key="status"]`), "regressed"))
	eval[bool](t, ctx, `document.querySelector('.filters[data-table="paired"] select').dispatchEvent(new Event("change"))`)
	if got := paired(); len(got) != 4 {
		t.Errorf("status=regressed shows %v, want the 4 cases that fell", got)
	}
	if s := eval[string](t, ctx, `document.querySelector('.filters[data-table="paired"] .shown').textContent`); s != "4 of 12 cases shown" {
		t.Errorf("the paired table's count says %q", s)
	}
}

// Markup in what an agent wrote, a case author typed or an artifact holds
// is shown as text and never runs: no script but the page's own, no image,
// and the text reads as written.
func TestBrowserHostileTextIsInert(t *testing.T) {
	ctx := browser(t)
	p := renderFixture(t)
	dir := t.TempDir()
	for name, b := range map[string][]byte{"suite.html": p.suite, "run.html": p.run, "comparison.html": p.compared, "experiment.html": p.experiment, "pair.html": p.pair} {
		t.Run(name, func(t *testing.T) {
			type dom struct {
				Pwned   bool   `json:"pwned"`
				Scripts int    `json:"scripts"`
				Images  int    `json:"images"`
				Text    string `json:"text"`
			}
			run(t, ctx, chromedp.Navigate(writePageFile(t, dir, name, b)))
			got := eval[dom](t, ctx, `({
				pwned: window.__pwned !== undefined, scripts: document.scripts.length,
				images: document.images.length + document.querySelectorAll("svg image, iframe, object, embed").length,
				text: document.body.textContent})`)
			if got.Pwned {
				t.Error("the hostile script ran")
			}
			if got.Scripts != 1 || got.Images != 0 {
				t.Errorf("%d scripts and %d images in the DOM; want only the page's own script", got.Scripts, got.Images)
			}
			if !strings.Contains(got.Text, hostile) {
				t.Error("the hostile markup is not shown as text")
			}
		})
	}
	// The artifact's preview, in particular, reads as the file does.
	run(t, ctx, chromedp.Navigate(writePageFile(t, dir, "run.html", p.run)))
	preview := eval[string](t, ctx, `document.querySelector("pre.preview").textContent`)
	if !strings.Contains(preview, "<script>window.__pwned=1</script>") {
		t.Errorf("artifact preview is %q", preview)
	}
	screenshot(t, ctx, "run.png")
	// The experiment page: one forest plot per candidate, profile and
	// split, one mark per effect with an interval.
	run(t, ctx, chromedp.Navigate(writePageFile(t, dir, "experiment.html", p.experiment)))
	marks := eval[[]int](t, ctx, `[...document.querySelectorAll("svg.forest")].map(s => s.querySelectorAll("circle.est").length)`)
	c, err := compare.Suites(context.Background(), p.a, p.b, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plotted := func(effects []compare.Effect) int {
		n := 0
		for _, e := range effects {
			if e.Interval != nil && !e.NoChange {
				n++
			}
		}
		return n
	}
	if want0, want := plotted(c.Effects[:2]), plotted(c.Effects); len(marks) != 2 || marks[0] != want0 || marks[1] != want {
		t.Errorf("experiment page plots %v marks, want [%d %d]", marks, want0, want)
	}
	screenshot(t, ctx, "experiment.png")
	eval[bool](t, ctx, `(document.getElementById("flips").scrollIntoView(), true)`)
	shot(t, ctx, "experiment-flips.png", chromedp.CaptureScreenshot())
}

// The served pages link to one another: the index to suites and runs, a
// suite's strip to each run's page (with the whole trajectory), the
// comparison to both suites; every link answers 200.
func TestBrowserServeLinks(t *testing.T) {
	ctx := browser(t)
	root := filepath.Join(t.TempDir(), "runs")
	a, b := pairSuites(t, root, 6, 2, map[int]bool{1: true})
	// A long trajectory: cut in a static file, whole when served.
	writeSuite(t, root, t0.Add(2*time.Hour), []fixtureRun{{caseID: "long", rep: 1, passed: ptr(true), durationMs: 5000, events: 600}})
	srv := httptest.NewServer(Handler(root, Options{}))
	t.Cleanup(srv.Close)
	links := func() []string {
		return eval[[]string](t, ctx, `[...document.querySelectorAll("a[href]")].map(a => a.href)`)
	}
	check := func(hrefs []string) {
		t.Helper()
		for _, h := range hrefs {
			if !strings.HasPrefix(h, srv.URL+"/") {
				t.Errorf("link %q leaves the server", h)
				continue
			}
			resp, err := http.Get(h)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET %s: %s", h, resp.Status)
			}
		}
	}
	kind := func() string {
		return eval[string](t, ctx, `document.body.dataset.kind`)
	}
	run(t, ctx, chromedp.Navigate(srv.URL+"/"))
	if kind() != "index" {
		t.Fatalf("/ is a %q page", kind())
	}
	idx := links()
	check(idx)
	screenshot(t, ctx, "index.png")

	// A suite, from the index.
	rel, _ := filepath.Rel(root, b)
	run(t, ctx, chromedp.Click(chromedp.CSS(`#suites a[href*="`+filepath.Base(rel)+`"]`)), chromedp.WaitVisible(chromedp.ID("cases")))
	if kind() != "suite" {
		t.Fatalf("the suite link opened a %q page", kind())
	}
	cells := eval[int](t, ctx, `document.querySelectorAll("#cases a.cell[href^='/run?']").length`)
	if cells != 12 {
		t.Errorf("%d strip cells link to run pages, want all 12", cells)
	}
	check(links())
	screenshot(t, ctx, "served-suite.png")

	// A run, from the strip.
	run(t, ctx, chromedp.Click(chromedp.CSS(`#cases a.cell`)), chromedp.WaitVisible(chromedp.CSS(".timeline")))
	if kind() != "run" {
		t.Fatalf("a strip cell opened a %q page", kind())
	}

	// The long run, whole.
	var long []string
	for _, h := range idx {
		if strings.Contains(h, "long") {
			long = append(long, h)
		}
	}
	if len(long) == 0 {
		t.Fatal("the index does not link the long run")
	}
	run(t, ctx, chromedp.Navigate(long[0]))
	entries := eval[int](t, ctx, `document.querySelectorAll(".timeline li").length`)
	notes := eval[int](t, ctx, `document.querySelectorAll(".timeline-note").length`)
	if entries < 600 || notes != 0 {
		t.Errorf("served long run shows %d entries and %d truncation notes, want every event and none", entries, notes)
	}

	// The comparison, from the index's form.
	relA, _ := filepath.Rel(root, a)
	run(t, ctx, chromedp.Navigate(srv.URL+"/"),
		chromedp.SetValue(chromedp.CSS(`select[name="a"]`), filepath.ToSlash(relA)),
		chromedp.SetValue(chromedp.CSS(`select[name="b"]`), filepath.ToSlash(rel)),
		chromedp.Submit(chromedp.CSS(`#compare-form`)), chromedp.WaitVisible(chromedp.ID("sentence")))
	if kind() != "comparison" {
		t.Fatalf("the compare form opened a %q page", kind())
	}
	sides := eval[[]string](t, ctx, `[...document.querySelectorAll("a.side-link")].map(a => a.href)`)
	if len(sides) != 2 {
		t.Errorf("comparison links %d suites, want A and B", len(sides))
	}
	check(links())
	screenshot(t, ctx, "served-comparison.png")

	// The regressed case's paired view, from the flip list.
	run(t, ctx, chromedp.Click(chromedp.CSS(`#flips a.pair-link`)), chromedp.WaitVisible(chromedp.CSS("table.steps")))
	if kind() != "pair" {
		t.Fatalf("the flip's link opened a %q page", kind())
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("pre.diff .add").length`); n == 0 {
		t.Error("the served paired view shows no diff")
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("a.run-link[href^='/run?']").length`); n != 2 {
		t.Errorf("the paired view links %d runs, want both", n)
	}
	check(links())
	screenshot(t, ctx, "served-pair.png")
}

// A suite page lays out only the first matching rows until "show all";
// filters still see every row.
func TestBrowserSuiteRowLimit(t *testing.T) {
	ctx := browser(t)
	root := filepath.Join(t.TempDir(), "runs")
	_, b := pairSuites(t, root, 12, 1, map[int]bool{1: true, 4: true, 7: true, 9: true})
	sp, err := Suite(context.Background(), b, Options{MaxRows: 5})
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctx, chromedp.Navigate(writePageFile(t, t.TempDir(), "suite.html", render(t, sp))))
	visible := func() int {
		return eval[int](t, ctx, `[...document.querySelectorAll("#cases tbody tr")].filter(r => r.offsetParent !== null).length`)
	}
	if n, s := visible(), eval[string](t, ctx, `document.getElementById("shown").textContent`); n != 5 || s != "the first 5 of 12 matching cases shown (of 12)" {
		t.Errorf("before show all: %d rows visible, count %q", n, s)
	}
	run(t, ctx, chromedp.SetValue(chromedp.ID("f-verdict"), "fail"))
	eval[bool](t, ctx, `document.getElementById("f-verdict").dispatchEvent(new Event("change"))`)
	if n := visible(); n != 4 {
		t.Errorf("verdict=fail under the limit shows %d rows, want the 4 failing cases", n)
	}
	run(t, ctx, chromedp.SetValue(chromedp.ID("f-verdict"), ""))
	eval[bool](t, ctx, `document.getElementById("f-verdict").dispatchEvent(new Event("change"))`)
	run(t, ctx, chromedp.Click(chromedp.ID("show-all")))
	if n := visible(); n != 12 {
		t.Errorf("after show all: %d rows visible, want 12", n)
	}
}
