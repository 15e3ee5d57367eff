package compare

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// benchSuites are two suites of 10,000 runs each (2,500 cases of four
// repetitions in 250 clusters), written once per test binary: suite.json
// and suite-summary.json only, which is all a comparison reads when
// identities match.
var benchSuites struct {
	once sync.Once
	root string
	a, b string
	err  error
}

const benchCases, benchReps = 2500, 4

func setupBenchSuites(b *testing.B) (string, string) {
	benchSuites.once.Do(func() {
		root, err := os.MkdirTemp("", "lux-compare-bench-")
		if err != nil {
			benchSuites.err = err
			return
		}
		benchSuites.root = root
		mk := func(seed int) []spec {
			return grid(benchCases, benchReps, func(i, r int) spec {
				s := pass(fmt.Sprintf("case-%04d", i), fmt.Sprintf("cluster-%03d", i%250))
				if (i*7+r*3+seed)%10 == 0 {
					s = fail(s.id, s.cluster)
				}
				ms := 1000 + (i*13+r*29+seed*7)%900
				tokens := int64(1000 + (i*31+r*17+seed)%5000)
				s.mutate = func(m *record.Metadata) {
					m.EndedAt = m.StartedAt.Add(time.Duration(ms) * time.Millisecond)
					m.Usage.Agent = &lux.TokenUsage{Input: tokens, Output: tokens / 4, CacheRead: tokens * 2}
				}
				return s
			})
		}
		benchSuites.a, _ = writeSuite(b, root, mk(0), suiteOpts{summary: true})
		benchSuites.b, _ = writeSuite(b, root, mk(3), suiteOpts{summary: true})
	})
	if benchSuites.err != nil {
		b.Fatal(benchSuites.err)
	}
	return benchSuites.a, benchSuites.b
}

// TestMain removes the benchmark's suites once every benchmark ran.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchSuites.root != "" {
		_ = os.RemoveAll(benchSuites.root)
	}
	os.Exit(code)
}

// BenchmarkCompareSuites10k compares two on-disk suites of 10,000 runs
// each and reports, besides time and allocations, the peak heap in use
// during one comparison and the size of the summaries read.
func BenchmarkCompareSuites10k(b *testing.B) {
	a, bb := setupBenchSuites(b)
	var size int64
	for _, d := range []string{a, bb} {
		fi, err := os.Stat(filepath.Join(d, record.SuiteSummaryFile))
		if err != nil {
			b.Fatal(err)
		}
		size += fi.Size()
	}
	peak := peakHeap(func() {
		if _, err := Suites(ctx, a, bb, Options{}); err != nil {
			b.Fatal(err)
		}
	})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c, err := Suites(ctx, a, bb, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if c.Counts.Paired != benchCases || c.A.Runs != benchCases*benchReps {
			b.Fatalf("paired %d cases of %d runs", c.Counts.Paired, c.A.Runs)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(size)/(1<<20), "summaries-MiB")
}

// peakHeap runs f and returns the most heap memory in use (live and not
// yet collected objects) seen while it ran, sampled every 200µs.
func peakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

// benchRunSets are two sets of 10,000 run directories each (run.json,
// grading.json and case.json), written once per test binary.
var benchRunSets struct {
	once sync.Once
	a, b []string
}

// BenchmarkCompareRunSets10k compares two sets of 10,000 run directories
// each: the path taken without suite summaries, which reads every run's
// run.json, grading.json and case.json, one run at a time.
func BenchmarkCompareRunSets10k(b *testing.B) {
	setupBenchSuites(b) // for the temporary root
	benchRunSets.once.Do(func() {
		for side, seed := range []int{0, 3} {
			root := filepath.Join(benchSuites.root, fmt.Sprintf("runs-%d", side))
			var dirs []string
			for i := range benchCases {
				for r := range benchReps {
					id := fmt.Sprintf("case-%04d", i)
					rec := run("", id)
					rec.Artifacts = nil
					rec.Case.Cluster = fmt.Sprintf("cluster-%03d", i%250)
					rec.Metadata.StartedAt = t0.Add(time.Duration(r) * time.Second)
					rec.Metadata.EndedAt = rec.Metadata.StartedAt.Add(time.Duration(1000+(i*13+r*29+seed*7)%900) * time.Millisecond)
					if (i*7+r*3+seed)%10 == 0 {
						rec.Grading = report(ptr(false), ptr(0.0))
					} else {
						rec.Grading = report(ptr(true), ptr(1.0))
					}
					dirs = append(dirs, writeRunDir(b, root, rec))
				}
			}
			if side == 0 {
				benchRunSets.a = dirs
			} else {
				benchRunSets.b = dirs
			}
		}
	})
	a, bb := benchRunSets.a, benchRunSets.b
	peak := peakHeap(func() {
		if _, err := RunSets(ctx, a, bb, Options{}); err != nil {
			b.Fatal(err)
		}
	})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c, err := RunSets(ctx, a, bb, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if c.Counts.Paired != benchCases || c.A.Runs != benchCases*benchReps {
			b.Fatalf("paired %d cases of %d runs", c.Counts.Paired, c.A.Runs)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
