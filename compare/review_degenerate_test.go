package compare

import (
	"fmt"
	"testing"

	"github.com/luxeval/lux/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A zero-width interval (every unit moved by exactly the same amount: all
// cases, or with clusters every cluster's mean) says nothing about
// uncertainty, so it alone cannot make an effect significant. Such an
// effect is significant when an exact sign test over the units agrees:
// with all U units moving the same way, p = 2·2⁻ᵁ.
func TestReviewDegenerateInterval(t *testing.T) {
	suites := func(n int, cluster func(i int) string, failsB func(i int) bool) (*SuiteComparison, func(Options) *SuiteComparison) {
		var a, b []rv
		for i := range n {
			id := fmt.Sprintf("d%02d", i)
			a = append(a, rvPass(id, 100).in(cluster(i)))
			r := rvPass(id, 100)
			if failsB(i) {
				r = rvFail(id, 100)
			}
			b = append(b, r.in(cluster(i)))
		}
		f := func(o Options) *SuiteComparison { return rvCompare(t, rvSuite(a...), rvSuite(b...), o) }
		return f(Options{}), f
	}
	none := func(int) string { return "" }
	tests := []struct {
		name        string
		n           int
		cluster     func(int) string
		failsB      func(int) bool
		significant bool
		p           float64
	}{
		// Two clusters of two, one case of each fails in B: both cluster
		// means fall by 1/2, so the cluster-robust standard error is 0.
		// Four independent cases would give [-1.42, +0.42].
		{"two clusters, same mean", 4, func(i int) string { return fmt.Sprint("k", i/2) }, func(i int) bool { return i%2 == 0 }, false, 0.5},
		{"three cases all fail", 3, none, func(int) bool { return true }, false, 0.25},
		{"six cases all fail", 6, none, func(int) bool { return true }, true, 1.0 / 32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, again := suites(tt.n, tt.cluster, tt.failsB)
			e := effectOf(t, c, MetricPassRate)
			require.NotNil(t, e.Interval)
			assert.Equal(t, e.Interval.Lower, e.Interval.Upper, "zero width")
			assert.Less(t, e.Delta, 0.0)
			assert.Equal(t, tt.significant, e.Significant)
			assert.Contains(t, codes(e.Warnings), WarnSignTest)
			assert.Contains(t, e.Warnings[len(e.Warnings)-1].Message, fmt.Sprintf("p = %.4g,", tt.p))
			if tt.significant {
				assert.Equal(t, "worse", e.Outcome)
				assert.Equal(t, Worse, c.Verdict)
				assert.True(t, c.Gate.Failed)
				// At 99 % six units are not enough (2·2⁻⁶ > 0.01).
				e = effectOf(t, again(Options{Level: 0.99}), MetricPassRate)
				assert.False(t, e.Significant)
			} else {
				assert.Empty(t, e.Outcome)
				assert.Equal(t, NoDifference, c.Verdict)
				require.NotEmpty(t, c.Reasons)
				assert.Contains(t, c.Reasons[0], "a zero-width interval that a sign test over the units does not confirm")
				assert.False(t, c.Gate.Failed)
				assert.True(t, again(Options{Strict: true}).Gate.Failed, "the strict gate still sees the flips")
			}
			// The bootstrap's zero-width interval reads the same.
			e = effectOf(t, again(Options{Method: stats.PercentileBootstrap}), MetricPassRate)
			assert.Equal(t, tt.significant, e.Significant, "bootstrap")
		})
	}
}
