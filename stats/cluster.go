package stats

import (
	"fmt"
	"math"
)

// sample is a validated set of values with its independent units.
type sample struct {
	values []float64
	n      int
	mean   float64
	// clustered is true when the labels group at least two values into one
	// unit; labels that leave every value alone are plain independent data.
	clustered bool
	// Per-cluster totals, in order of first appearance; set when clustered.
	totals []clusterTotal
	// index maps each value to its cluster; set when clustered.
	index []int
}

// clusterTotal is the sum of a cluster's values and its number of values.
type clusterTotal struct {
	sum, size float64
}

// newSample groups values by cluster label and checks the number of units.
func newSample(values []float64, clusters []string, minUnits int) (*sample, error) {
	if clusters != nil && len(clusters) != len(values) {
		return nil, errorf(CodeLength, "%d values but %d cluster labels; give one label per value, or nil for independent values",
			len(values), len(clusters))
	}
	s := &sample{values: values, n: len(values)}
	if clusters != nil {
		index, c := clusterIndex(clusters)
		if c < len(values) {
			s.clustered = true
			s.index = index
			s.totals = make([]clusterTotal, c)
			for i, v := range values {
				t := &s.totals[index[i]]
				t.sum += v
				t.size++
			}
		}
	}
	if u := s.units(); u < minUnits {
		what := "values"
		if s.clustered {
			what = "clusters"
		}
		return nil, errorf(CodeTooFewUnits, "%d %s, need at least %d (Config.MinUnits)", u, what, minUnits)
	}
	s.mean = mean(values)
	return s, nil
}

// units is the number of independent units.
func (s *sample) units() int {
	if s.clustered {
		return len(s.totals)
	}
	return s.n
}

// clusterIndex numbers the labels in order of first appearance. An empty
// label is a cluster of its own value.
func clusterIndex(labels []string) (index []int, count int) {
	index = make([]int, len(labels))
	ids := make(map[string]int)
	for i, l := range labels {
		if l == "" {
			index[i] = count
			count++
			continue
		}
		id, ok := ids[l]
		if !ok {
			id = count
			ids[l] = id
			count++
		}
		index[i] = id
	}
	return index, count
}

func mean(values []float64) float64 {
	sum := 0.0
	for _, v := range values {
		sum += v
	}
	return sum / float64(len(values))
}

// stdErr is SE_CLT, or the CR1 cluster-robust SE when clustered.
func (s *sample) stdErr() float64 {
	if s.n < 2 {
		return 0
	}
	if !s.clustered {
		ss := 0.0
		for _, v := range s.values {
			e := v - s.mean
			ss += float64(e * e)
		}
		return math.Sqrt(ss / float64(s.n) / float64(s.n-1))
	}
	c := len(s.totals)
	if c < 2 {
		return 0
	}
	resid := make([]float64, c)
	for i, v := range s.values {
		resid[s.index[i]] += v - s.mean
	}
	ss := 0.0
	for _, r := range resid {
		ss += float64(r * r)
	}
	return math.Sqrt(float64(c)/float64(c-1)*ss) / float64(s.n)
}

// StdErr returns the standard error of the mean of values. Without
// clusters it is the CLT standard error (Miller 2024, "Adding Error Bars to
// Evals"):
//
//	SE = √( Σᵢ (sᵢ − s̄)² / (n(n−1)) ) = sd(s)/√n
//
// With clusters (one label per value, as in [Mean]) it is the
// cluster-robust CR1 standard error with the C/(C−1) small-sample
// correction (Liang & Zeger 1986; Cameron & Miller 2015, "A Practitioner's
// Guide to Cluster-Robust Inference"):
//
//	S_c = Σ_{i∈c} (sᵢ − s̄),  SE = √( C/(C−1) · Σ_c S_c² ) / n
//
// It is 0 for fewer than two values or two clusters. Errors: non-finite
// values ([ErrNonFinite]) and len(clusters) ≠ len(values) ([ErrLength]).
func StdErr(values []float64, clusters []string) (float64, error) {
	if err := checkFinite("values", values); err != nil {
		return 0, err
	}
	s, err := newSample(values, clusters, 0)
	if err != nil {
		return 0, err
	}
	if s.n == 0 {
		return 0, nil
	}
	return s.stdErr(), nil
}

// clt is the Normal or StudentT interval.
func (s *sample) clt(st settings) Interval {
	se := s.stdErr()
	units := s.units()
	p := 0.5 + st.level/2
	var crit float64
	if st.method == Normal {
		crit = NormalQuantile(p)
	} else {
		crit = StudentTQuantile(p, units-1)
	}
	iv := s.interval(st.method, st.level)
	iv.StdErr = se
	iv.Lower = s.mean - crit*se
	iv.Upper = s.mean + crit*se
	iv.Warnings = s.warnings(st.method)
	if se == 0 {
		iv.Warnings = append(iv.Warnings, warnf(WarnDegenerate, "the standard error is 0 (no variation between the %d units), so the interval has zero width; %q gives a non-degenerate interval for values in [0, 1]",
			units, Hoeffding))
	}
	return iv
}

// hoeffding is the Hoeffding interval for units bounded in a range of the
// given width, clipped to [lo, hi].
func (s *sample) hoeffding(level, width, lo, hi float64) Interval {
	// Σ_c w_c² with w_c = n_c/n; 1/n without clusters.
	sumW2 := 1 / float64(s.n)
	if s.clustered {
		sumW2 = 0
		for _, t := range s.totals {
			w := t.size / float64(s.n)
			sumW2 += float64(w * w)
		}
	}
	half := width * math.Sqrt(math.Log(2/(1-level))*sumW2/2)
	iv := s.interval(Hoeffding, level)
	iv.Lower = math.Max(lo, s.mean-half)
	iv.Upper = math.Min(hi, s.mean+half)
	return iv
}

// interval fills the fields every method shares.
func (s *sample) interval(m Method, level float64) Interval {
	return Interval{Method: m, Level: level, Estimate: s.mean, N: s.n, Units: s.units()}
}

// warnings returns the caveats that depend only on the units and method.
func (s *sample) warnings(m Method) []Warning {
	var w []Warning
	switch {
	case s.clustered && len(s.totals) < FewClusters:
		advice := fmt.Sprintf("prefer %q, whose C-1 degrees of freedom partly allow for it", StudentT)
		if m == StudentT {
			advice = "even t with C-1 degrees of freedom over-rejects somewhat (Cameron, Gelbach & Miller 2008)"
		}
		w = append(w, warnf(WarnFewClusters, "%d clusters (fewer than %d): cluster-robust and cluster-bootstrap intervals are too narrow with few clusters; %s",
			len(s.totals), FewClusters, advice))
	case !s.clustered && s.n < FewUnits && (m == Normal || m == PercentileBootstrap):
		w = append(w, warnf(WarnFewUnits, "%d values (fewer than %d): a %s interval under-covers with few values; prefer %q, or %q for 0/1 values",
			s.n, FewUnits, m, StudentT, Wilson))
	}
	return w
}
