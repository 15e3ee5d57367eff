package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/luxeval/lux/record"
)

// side accumulates the runs of one side of a suite comparison, one run at
// a time: per case, the number of runs, passes, and the sum and count of
// every metric. Nothing per run is kept but the distinct identity hashes
// of each case, so memory grows with cases × metrics, not with runs.
type side struct {
	name    string // "A" or "B"
	info    SuiteInfo
	metrics metricSet
	cases   map[string]*caseAcc
	// runsWith counts, per metric index, the runs that have the metric.
	runsWith []int
	// onAdd, when set, is given every run added (SequentialSuites).
	onAdd func(*record.Sample)
}

// caseAcc is one case on one side.
type caseAcc struct {
	cluster  string
	runs     int
	passed   int
	ungraded int
	sums     []float64 // by metric index
	counts   []int32   // by metric index
	idents   []identRep
}

// identRep is one distinct identity hash among a case's runs, with the run
// directory of its first run (to explain a mismatch by its fields).
type identRep struct {
	hash   string
	runDir string
}

// metricSet numbers metric names in order of appearance.
type metricSet struct {
	index map[string]int
	names []string
}

func (m *metricSet) id(name string) int {
	if i, ok := m.index[name]; ok {
		return i
	}
	if m.index == nil {
		m.index = map[string]int{}
	}
	i := len(m.names)
	m.index[name] = i
	m.names = append(m.names, name)
	return i
}

func newSide(name string) *side {
	s := &side{name: name, cases: map[string]*caseAcc{}}
	s.metrics.id(MetricPassRate) // index 0
	s.metrics.id(MetricScore)    // index 1
	return s
}

const (
	passIdx  = 0
	scoreIdx = 1
)

// harnessTokens are the harness metrics of record.RunMetrics that count
// tokens (its cache hit rate is undefined without tokens).
var harnessTokens = []string{"harness.input", "harness.output", "harness.cacheRead", "harness.cacheCreation", "harness.total"}

// add counts one completed run. runDir is where its record is ("" when
// unknown). A score or metric that is not finite is an ErrCorrupt error,
// and nothing of the run is counted.
func (sd *side) add(s *record.Sample, runDir string) error {
	if err := sd.checkFinite(s, runDir); err != nil {
		return err
	}
	if sd.onAdd != nil {
		sd.onAdd(s)
	}
	c := sd.cases[s.CaseID]
	if c == nil {
		c = &caseAcc{cluster: s.Cluster}
		sd.cases[s.CaseID] = c
	}
	c.runs++
	sd.info.Runs++
	pass := 0.0
	switch s.Verdict() {
	case record.VerdictPass:
		pass = 1
		c.passed++
		sd.info.Passed++
	case record.VerdictUngraded:
		c.ungraded++
		sd.info.Ungraded++
	case record.VerdictError:
		sd.info.Errored++
	case record.VerdictCancelled:
		sd.info.Cancelled++
	default:
		sd.info.Failed++
	}
	sd.put(c, passIdx, pass)
	overflow := ""
	if s.Score != nil && !sd.put(c, scoreIdx, *s.Score) {
		overflow = MetricScore
	}
	for k, v := range s.Metrics {
		if !sd.put(c, sd.metrics.id(k), v) && (overflow == "" || k < overflow) {
			overflow = k
		}
	}
	if overflow != "" {
		return sd.corrupt(s, runDir, fmt.Sprintf("the sum of %s over the case's runs overflows", overflow))
	}
	if len(s.Metrics) > 0 {
		// record.RunMetrics leaves harness tokens out when they are zero;
		// the harness always knows what it spent, so absent means 0 here.
		for _, k := range harnessTokens {
			if _, ok := s.Metrics[k]; !ok {
				sd.put(c, sd.metrics.id(k), 0)
			}
		}
	}
	for _, r := range c.idents {
		if r.hash == s.IdentityHash {
			return nil
		}
	}
	c.idents = append(c.idents, identRep{hash: s.IdentityHash, runDir: runDir})
	return nil
}

// checkFinite reports a score or metric of s that is NaN or infinite.
func (sd *side) checkFinite(s *record.Sample, runDir string) error {
	var bad []string
	if s.Score != nil && !finite(*s.Score) {
		bad = append(bad, fmt.Sprintf("%s is %v", MetricScore, *s.Score))
	}
	for k, v := range s.Metrics {
		if !finite(v) {
			bad = append(bad, fmt.Sprintf("%s is %v", k, v))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	problem := bad[0]
	if len(bad) > 1 {
		problem += fmt.Sprintf(" (%d values are not finite)", len(bad))
	}
	return sd.corrupt(s, runDir, problem)
}

// corrupt is the ErrCorrupt error for run s of the side.
func (sd *side) corrupt(s *record.Sample, runDir, problem string) error {
	where := "suite " + sd.name
	if sd.info.Dir != "" {
		where += " (" + sd.info.Dir + ")"
	}
	where += ", case " + s.CaseID
	if s.Repetition > 0 {
		where += fmt.Sprintf(" repetition %d", s.Repetition)
	}
	if runDir != "" {
		where += ", run " + runDir
	}
	return fmt.Errorf("%w: %s: %s", ErrCorrupt, where, problem)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// put adds v to metric i of case c; false when the case's sum is no
// longer finite.
func (sd *side) put(c *caseAcc, i int, v float64) bool {
	for len(c.sums) <= i {
		c.sums = append(c.sums, 0)
		c.counts = append(c.counts, 0)
	}
	for len(sd.runsWith) <= i {
		sd.runsWith = append(sd.runsWith, 0)
	}
	c.sums[i] += v
	c.counts[i]++
	sd.runsWith[i]++
	return finite(c.sums[i])
}

// mean returns the case's mean of metric name over its runs, and false
// unless every run of the case has it (a metric missing from some runs,
// such as tokens when one run's agent reported none, is left out rather
// than averaged over the runs that happen to have it).
func (sd *side) mean(c *caseAcc, name string) (float64, bool) {
	i, ok := sd.metrics.index[name]
	if !ok || i >= len(c.counts) || int(c.counts[i]) != c.runs || c.runs == 0 {
		return 0, false
	}
	return c.sums[i] / float64(c.runs), true
}

// runsHaving is how many runs of the side have metric name.
func (sd *side) runsHaving(name string) int {
	i, ok := sd.metrics.index[name]
	if !ok || i >= len(sd.runsWith) {
		return 0
	}
	return sd.runsWith[i]
}

// finish fills the side's totals once every run is in.
func (sd *side) finish() {
	sd.info.Cases = len(sd.cases)
	if sd.info.Attempts == 0 {
		sd.info.Attempts = sd.info.Runs + sd.info.Pending
	}
	if sd.info.Runs > 0 {
		sd.info.PassRate = float64(sd.info.Passed) / float64(sd.info.Runs)
	}
}
