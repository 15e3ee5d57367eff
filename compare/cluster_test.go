package compare

import (
	"fmt"
	"math"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/digest"
	"github.com/luxeval/lux/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A case whose cluster label differs between A and B. A new label changes
// the case's hash, so without Vary the case is not comparable; with the
// case hash varied, the paired difference of a case depends on both its
// runs, so two cases are one unit when they share a cluster on either
// side: the units are the connected groups of both labelings, and neither
// side's clusters are dropped.
func TestClusterLabelsDiffer(t *testing.T) {
	labelA := func(i int) string {
		if i < 12 {
			return fmt.Sprintf("a%d", i/3)
		}
		return ""
	}
	labelB := func(i int) string {
		switch {
		case i == 2:
			return "a1" // moves to a1's cluster: a0 and a1 become one unit
		case i == 11:
			return "" // a3 still holds it through A
		case i == 12 || i == 13:
			return "n" // declared in B only
		}
		return labelA(i)
	}
	const n = 15
	var a, b []rv
	var before, after []float64
	for i := range n {
		id := fmt.Sprintf("c%02d", i)
		da, db := float64(100+i*i%7), float64(110+(i*5)%11)
		a = append(a, rvPass(id, da).in(labelA(i)))
		b = append(b, rvPass(id, db).in(labelB(i)))
		before, after = append(before, da), append(after, db)
	}
	units := []string{"a0+a1", "a0+a1", "a0+a1", "a0+a1", "a0+a1", "a0+a1", "a2", "a2", "a2", "a3", "a3", "a3", "n", "n", ""}
	want, err := stats.Paired(before, after, units, stats.Config{})
	require.NoError(t, err)
	require.Equal(t, 5, want.Units)

	for _, swap := range []bool{false, true} {
		sa, sb := rvSuite(a...), rvSuite(b...)
		if swap {
			sa, sb = sb, sa
		}
		c := rvCompare(t, sa, sb, Options{})
		assert.Equal(t, 5, c.Counts.Clusters, "swap %v", swap)
		e := effectOf(t, c, "durationMs")
		require.NotNil(t, e.Interval)
		assert.Equal(t, 5, e.Interval.Units)
		assert.True(t, e.Interval.Clustered)
		sign := 1.0
		if swap {
			sign = -1
		}
		assert.InDelta(t, sign*want.Estimate, e.Delta, 1e-12)
		assert.InDelta(t, want.Upper-want.Lower, e.Interval.Upper-e.Interval.Lower, 1e-9)
		for i, u := range units {
			assert.Equal(t, u, caseOf(t, c, fmt.Sprintf("c%02d", i)).Cluster, "case %d", i)
		}
	}
}

// The cluster label is part of the case, so of its hash: a case relabelled
// between A and B needs FieldCaseHash varied to compare at all.
func TestClusterInCaseHash(t *testing.T) {
	x, err := digest.Value(&lux.Case{ID: "x", Prompt: "p", Cluster: "a"})
	require.NoError(t, err)
	y, err := digest.Value(&lux.Case{ID: "x", Prompt: "p", Cluster: "b"})
	require.NoError(t, err)
	assert.NotEqual(t, x, y)
}

// The clustered interval by hand: the CR1 standard error over the per-case
// differences, S_c = Σ_{i∈c}(dᵢ − d̄), SE = √(C/(C−1)·Σ S_c²)/n, with t at
// C−1 degrees of freedom; a case without a cluster is a unit of its own.
func TestClusteredByHand(t *testing.T) {
	durA := []float64{100, 200, 300, 400, 500}
	durB := []float64{110, 230, 320, 395, 540} // d = 10, 30, 20, −5, 40
	labels := []string{"x", "x", "x", "y", ""}
	var a, b []rv
	for i := range durA {
		id := fmt.Sprintf("h%d", i)
		a = append(a, rvPass(id, durA[i]).in(labels[i]))
		b = append(b, rvPass(id, durB[i]).in(labels[i]))
	}
	c := rvCompare(t, rvSuite(a...), rvSuite(b...), Options{})
	// d̄ = 95/5 = 19; S_x = −9 + 11 + 1 = 3, S_y = −24, S_h4 = 21.
	se := math.Sqrt(3.0/2*(3*3+24*24+21*21)) / 5
	half := tq2(0.975) * se
	e := effectOf(t, c, "durationMs")
	require.NotNil(t, e.Interval)
	assert.InDelta(t, 19.0, e.Delta, 1e-12)
	assert.InDelta(t, se, e.Interval.StdErr, 1e-12)
	assert.InDelta(t, 19-half, e.Interval.Lower, 1e-9)
	assert.InDelta(t, 19+half, e.Interval.Upper, 1e-9)
	assert.Equal(t, 3, e.Interval.Units)
	assert.True(t, e.Interval.Clustered)
	assert.Equal(t, 3, c.Counts.Clusters)
	assert.Equal(t, stats.StudentT, e.Interval.Method)
}

// A label that reads like a merged unit ("x+y") stays a cluster of its
// own, apart from the unit that merges x and y.
func TestClusterNameCollision(t *testing.T) {
	la := []string{"x", "x", "y", "x+y", "x+y", "z", "z"}
	lb := []string{"x", "y", "y", "x+y", "x+y", "z", "z"}
	var a, b []rv
	var before, after []float64
	for i := range la {
		id := fmt.Sprintf("n%d", i)
		da, db := float64(10*i), float64(10*i+i*i%5)
		a = append(a, rvPass(id, da).in(la[i]))
		b = append(b, rvPass(id, db).in(lb[i]))
		before, after = append(before, da), append(after, db)
	}
	want, err := stats.Paired(before, after, []string{"m", "m", "m", "l", "l", "z", "z"}, stats.Config{})
	require.NoError(t, err)
	c := rvCompare(t, rvSuite(a...), rvSuite(b...), Options{})
	assert.Equal(t, 3, c.Counts.Clusters)
	e := effectOf(t, c, "durationMs")
	require.NotNil(t, e.Interval)
	assert.Equal(t, 3, e.Interval.Units)
	assert.InDelta(t, want.Upper-want.Lower, e.Interval.Upper-e.Interval.Lower, 1e-9)
}
