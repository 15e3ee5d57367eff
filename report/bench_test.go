package report

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// BenchmarkSuite10k measures a suite of 10,000 runs (2,500 cases × 4
// repetitions, 250 clusters, one case in ten failing): building and
// rendering its static page in Go, and loading that page in headless
// Chromium.
//
//	go test -run '^$' -bench Suite10k -benchtime 3x ./report/
func BenchmarkSuite10k(b *testing.B) {
	root := filepath.Join(b.TempDir(), "runs")
	var runs []fixtureRun
	for c := range 2500 {
		for r := 1; r <= 4; r++ {
			runs = append(runs, fixtureRun{caseID: fmt.Sprintf("area-%03d/case-%04d", c%250, c), rep: r,
				cluster: fmt.Sprintf("repo-%03d", c%250), tags: []string{fmt.Sprintf("tag-%d", c%7)},
				passed: ptr(c%10 != 3), tokens: int64(100 + c%50), durationMs: int64(1000 + c%900)})
		}
	}
	dir := writeSuite(b, root, t0, runs)
	var page []byte
	b.Run("build+render", func(b *testing.B) {
		for b.Loop() {
			p, err := Suite(context.Background(), dir, Options{})
			if err != nil {
				b.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteHTML(&buf, p); err != nil {
				b.Fatal(err)
			}
			page = buf.Bytes()
		}
		b.ReportMetric(float64(len(page))/(1<<20), "MiB/page")
	})
	b.Run("browser", func(b *testing.B) {
		ctx := browser(b)
		url := writePageFile(b, b.TempDir(), "suite.html", page)
		var loadMs float64
		for b.Loop() {
			if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
				b.Fatal(err)
			}
			v, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`performance.getEntriesByType("navigation")[0].loadEventEnd`))
			if err != nil {
				b.Fatal(err)
			}
			loadMs = v
		}
		b.ReportMetric(loadMs, "ms-to-load")
	})
}
