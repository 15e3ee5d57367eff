package stats

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// The percentile bootstrap.
//
// Each resample is computed from its own random stream (see rng.go), so the
// result does not depend on GOMAXPROCS or on scheduling: resamples are
// spread over goroutines in chunks, and resample r always lands in slot r.
// Memory is one float64 per resample; the draws themselves are streamed.
// Floating-point sums run in a fixed order with explicit conversions where
// a product is added, so no platform fuses them into different roundings.

// parallelDraws is the number of draws below which a bootstrap runs on the
// calling goroutine.
const parallelDraws = 1 << 18

// chunkResamples is the number of resamples a worker takes at a time.
const chunkResamples = 32

// bootstrap is the percentile bootstrap interval.
func (s *sample) bootstrap(st settings) Interval {
	means := make([]float64, st.resamples)
	if s.clustered {
		totals := s.totals
		run(means, len(totals), func(lo, hi int) {
			for r := lo; r < hi; r++ {
				means[r] = resampleClusters(totals, newStream(st.seed, uint64(r)))
			}
		})
	} else {
		values := s.values
		run(means, len(values), func(lo, hi int) {
			for r := lo; r < hi; r++ {
				means[r] = resampleValues(values, newStream(st.seed, uint64(r)))
			}
		})
	}
	slices.Sort(means)
	tail := (1 - st.level) / 2
	iv := s.interval(PercentileBootstrap, st.level)
	iv.Lower = percentile(means, tail)
	iv.Upper = percentile(means, 1-tail)
	iv.StdErr = sampleSD(means)
	iv.Resamples = st.resamples
	iv.Warnings = s.warnings(PercentileBootstrap)
	if st.resamples < FewResamples {
		iv.Warnings = append(iv.Warnings, warnf(WarnFewResamples, "%d resamples (fewer than %d): the tail quantiles are unstable; use 2000 or more, about 10000 for a final report",
			st.resamples, FewResamples))
	}
	if iv.Lower == iv.Upper {
		iv.Warnings = append(iv.Warnings, warnf(WarnDegenerate, "every resample has the same mean (no variation between the %d units), so the interval has zero width; %q gives a non-degenerate interval for values in [0, 1]",
			iv.Units, Hoeffding))
	}
	return iv
}

// run calls fill over [0, len(means)) in chunks, on up to GOMAXPROCS
// goroutines when the work (resamples × draws) is large enough.
func run(means []float64, draws int, fill func(lo, hi int)) {
	total := len(means)
	chunks := (total + chunkResamples - 1) / chunkResamples
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers <= 1 || float64(total)*float64(draws) < parallelDraws {
		fill(0, total)
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				lo := c * chunkResamples
				fill(lo, min(lo+chunkResamples, total))
			}
		})
	}
	wg.Wait()
}

// resampleValues returns the mean of len(values) values drawn with
// replacement. Sums alternate between two accumulators (even and odd
// draws), added at the end.
func resampleValues(values []float64, g xoshiro) float64 {
	n := uint64(len(values))
	if n > math.MaxUint32 {
		var a float64
		var i uint64
		for range n {
			g, i = index64(g, n)
			a += values[i]
		}
		return a / float64(n)
	}
	// Lemire's rejection zone (see lemire32). The two draws per output are
	// written out here and in resampleClusters rather than called: a
	// function drawing the pair is not inlined, and the call more than
	// doubles the time of this loop (BenchmarkInnerLoop).
	thresh := uint32(-uint32(n)) % uint32(n)
	var a, b float64
	var x uint64
	for range n / 2 {
		g, x = g.next()
		m0 := (x & math.MaxUint32) * n
		m1 := (x >> 32) * n
		g, m0 = lemire32(g, m0, n, thresh)
		g, m1 = lemire32(g, m1, n, thresh)
		a += values[m0>>32]
		b += values[m1>>32]
	}
	if n%2 == 1 {
		g, x = g.next()
		m0 := (x & math.MaxUint32) * n
		_, m0 = lemire32(g, m0, n, thresh)
		a += values[m0>>32]
	}
	return (a + b) / float64(n)
}

// resampleClusters draws len(totals) clusters with replacement and returns
// the mean over their pooled values, Σ sum / Σ size: the ratio estimator,
// which equals the mean of the concatenated resampled observations (the
// cluster bootstrap of Field & Welsh 2007, "Bootstrapping Clustered Data").
func resampleClusters(totals []clusterTotal, g xoshiro) float64 {
	n := uint64(len(totals))
	if n > math.MaxUint32 {
		var sum, size float64
		var i uint64
		for range n {
			g, i = index64(g, n)
			sum += totals[i].sum
			size += totals[i].size
		}
		return sum / size
	}
	// The draws of resampleValues, written out for the same reason.
	thresh := uint32(-uint32(n)) % uint32(n)
	var sa, sb, na, nb float64
	var x uint64
	for range n / 2 {
		g, x = g.next()
		m0 := (x & math.MaxUint32) * n
		m1 := (x >> 32) * n
		g, m0 = lemire32(g, m0, n, thresh)
		g, m1 = lemire32(g, m1, n, thresh)
		t0, t1 := totals[m0>>32], totals[m1>>32]
		sa += t0.sum
		na += t0.size
		sb += t1.sum
		nb += t1.size
	}
	if n%2 == 1 {
		g, x = g.next()
		m0 := (x & math.MaxUint32) * n
		_, m0 = lemire32(g, m0, n, thresh)
		t0 := totals[m0>>32]
		sa += t0.sum
		na += t0.size
	}
	return (sa + sb) / (na + nb)
}

// percentile returns the p-quantile of sorted values by linear
// interpolation between the two nearest ranks (Hyndman & Fan 1996,
// definition 7; the reference system's rule): pos = p·(len−1),
// x[⌊pos⌋] + (pos − ⌊pos⌋)·(x[⌈pos⌉] − x[⌊pos⌋]), so equal neighbours give
// their value exactly.
func percentile(sorted []float64, p float64) float64 {
	last := len(sorted) - 1
	if last == 0 {
		return sorted[0]
	}
	pos := min(max(p*float64(last), 0), float64(last))
	lo := int(pos)
	hi := min(lo+1, last)
	f := pos - float64(lo)
	if f == 0 {
		return sorted[lo]
	}
	return sorted[lo] + float64(f*(sorted[hi]-sorted[lo]))
}

// sampleSD is the standard deviation with the n−1 divisor.
func sampleSD(x []float64) float64 { return math.Sqrt(sampleVar(x)) }

// sampleVar is the variance with the n−1 divisor (0 for fewer than two
// values).
func sampleVar(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	m := mean(x)
	ss := 0.0
	for _, v := range x {
		e := v - m
		ss += float64(e * e)
	}
	return ss / float64(len(x)-1)
}
