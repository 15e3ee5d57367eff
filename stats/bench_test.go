package stats

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

func benchValues(n int) []float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	v := make([]float64, n)
	for i := range v {
		if rng.Float64() < 0.7 {
			v[i] = 1
		}
	}
	return v
}

func benchClusters(n, size int) []string {
	c := make([]string, n)
	for i := range c {
		c[i] = fmt.Sprint(i / size)
	}
	return c
}

// BenchmarkBootstrap100kValues10kResamples: 10⁹ draws in one call.
func BenchmarkBootstrap100kValues10kResamples(b *testing.B) {
	values := benchValues(100_000)
	cfg := Config{Method: PercentileBootstrap, Resamples: 10_000, Seed: 1}
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		if _, err := Mean(values, nil, cfg); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start, 1e9)
}

// BenchmarkClusterBootstrap10kClusters10kResamples: 10⁴ clusters of 5
// values, 10⁸ cluster draws in one call.
func BenchmarkClusterBootstrap10kClusters10kResamples(b *testing.B) {
	const clusters, size = 10_000, 5
	values := benchValues(clusters * size)
	labels := benchClusters(len(values), size)
	cfg := Config{Method: PercentileBootstrap, Resamples: 10_000, Seed: 1}
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		if _, err := Mean(values, labels, cfg); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start, 1e8)
}

// reportCPU reports the process CPU time per operation (all cores; on an
// idle machine the wall time is about this divided by the cores used) and
// the wall time per draw.
func reportCPU(b *testing.B, start time.Duration, draws float64) {
	if cpu := processCPU() - start; cpu > 0 {
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/draws, "ns/draw")
}

// BenchmarkBootstrapBillionDrawsMemory runs 10⁹ draws as 10⁶ resamples of
// 1000 values and reports the peak heap growth: the means array (8 MB) and
// nothing proportional to the draws.
func BenchmarkBootstrapBillionDrawsMemory(b *testing.B) {
	values := benchValues(1000)
	cfg := Config{Method: PercentileBootstrap, Resamples: 1_000_000, Seed: 1}
	b.ReportAllocs()
	var before, after runtime.MemStats
	start := processCPU()
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&before)
		if _, err := Mean(values, nil, cfg); err != nil {
			b.Fatal(err)
		}
		runtime.ReadMemStats(&after)
	}
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/1e6, "MB-alloc/op")
	b.ReportMetric(float64(after.HeapSys)/1e6, "MB-heap-sys")
	reportCPU(b, start, 1e9)
}

// BenchmarkInnerLoop measures one resample of 100k values: the draw loop
// alone, which must not allocate.
func BenchmarkInnerLoop(b *testing.B) {
	values := benchValues(100_000)
	b.ReportAllocs()
	r := uint64(0)
	sink := 0.0
	for b.Loop() {
		sink += resampleValues(values, newStream(1, r))
		r++
	}
	_ = sink
}
