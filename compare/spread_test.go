package compare

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Six cases that all went from fail to pass have no spread: the t
// interval of their paired difference has zero width, [+1, +1], which
// claims certainty six cases cannot give. A rate or a score falls back to
// the exact bound stats has for a bounded sample without spread, and the
// interval names that method.
func TestBoundedMetricWithoutSpreadGetsAnExactBound(t *testing.T) {
	var a, b []rv
	for i := range 6 {
		a, b = append(a, rvFail(caseID(i), 100)), append(b, rvPass(caseID(i), 100))
	}
	c := rvCompare(t, rvSuite(a...), rvSuite(b...), Options{})
	for _, m := range []string{MetricPassRate, MetricScore} {
		e := effectOf(t, c, m)
		require.NotNil(t, e.Interval, m)
		assert.Less(t, e.Interval.Lower, 1.0, "%s: a zero-width interval at +1 claims certainty", m)
		assert.Greater(t, e.Interval.Lower, 0.0, "%s: six of six improved is still significant at 95%%", m)
		assert.EqualValues(t, "clopper-pearson", e.Interval.Method, m)
		assert.Equal(t, "better", e.Outcome, m)
	}
}
