package record

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/luxeval/lux"
)

// SuiteSummary is suite-summary.json, written when a suite ends. It holds
// enough (per-run samples with their metrics and identity hashes) for two
// suites to be compared from their summaries alone.
type SuiteSummary struct {
	SchemaVersion int                      `json:"schemaVersion"`
	SuiteID       string                   `json:"suiteId"`
	GeneratedAt   time.Time                `json:"generatedAt"`
	Status        SuiteStatus              `json:"status"`
	Totals        Outcome                  `json:"totals"`
	Metrics       map[string]MetricSummary `json:"metrics"`
	Cases         []CaseOutcome            `json:"cases"`
	Samples       []Sample                 `json:"samples"`
}

// Outcome counts the runs of a suite or of one case by verdict (see
// Verdict). Errors, cancelled runs and runs that never started have no
// verdict on the agent: PassRate is over the graded runs only.
type Outcome struct {
	Attempts  int     `json:"attempts"`  // items
	Completed int     `json:"completed"` // items that ran (or were refused)
	Passed    int     `json:"passed"`    // verdict pass
	Failed    int     `json:"failed"`    // verdict fail: the agent failed
	Errored   int     `json:"errored"`   // verdict error: the harness could not grade
	Cancelled int     `json:"cancelled"` // verdict cancelled
	Ungraded  int     `json:"ungraded"`  // completed, done, nothing to grade
	Pending   int     `json:"pending"`   // verdict not run: never started (the suite was stopped)
	Graded    int     `json:"graded"`    // Passed + Failed
	PassRate  float64 `json:"passRate"`  // Passed / Graded; 0 when nothing was graded
}

func (o *Outcome) add(it SuiteItem) {
	o.Attempts++
	v := it.Verdict()
	if v != VerdictNotRun {
		o.Completed++
	}
	switch v {
	case VerdictPass:
		o.Passed++
	case VerdictFail:
		o.Failed++
	case VerdictError:
		o.Errored++
	case VerdictCancelled:
		o.Cancelled++
	case VerdictNotRun:
		o.Pending++
	default:
		o.Ungraded++
	}
}

func (o *Outcome) finish() {
	o.Graded = o.Passed + o.Failed
	if o.Graded > 0 {
		o.PassRate = float64(o.Passed) / float64(o.Graded)
	}
}

// MetricSummary describes the values of one metric over runs.
type MetricSummary struct {
	N      int     `json:"n"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	P90    float64 `json:"p90"` // nearest rank
}

// Summarize returns the summary of values (which it sorts in place).
func Summarize(values []float64) MetricSummary {
	n := len(values)
	if n == 0 {
		return MetricSummary{}
	}
	sort.Float64s(values)
	var sum float64
	for _, v := range values {
		sum += v
	}
	median := values[n/2]
	if n%2 == 0 {
		median = (values[n/2-1] + values[n/2]) / 2
	}
	return MetricSummary{
		N: n, Min: values[0], Max: values[n-1], Mean: sum / float64(n), Median: median,
		P90: values[max(0, int(math.Ceil(0.9*float64(n)))-1)],
	}
}

// CaseOutcome is the outcome of one case over its repetitions.
type CaseOutcome struct {
	CaseID  string `json:"caseId"`
	Cluster string `json:"cluster,omitempty"`
	Outcome
	Metrics map[string]MetricSummary `json:"metrics"`
}

// Sample is one run of a suite as comparisons need it.
type Sample struct {
	Index      int            `json:"index"` // position in the manifest's items
	CaseID     string         `json:"caseId"`
	Repetition int            `json:"repetition"`
	Cluster    string         `json:"cluster,omitempty"`
	RunDir     string         `json:"runDir,omitempty"` // relative to the suite directory
	ExitReason lux.ExitReason `json:"exitReason,omitempty"`
	Passed     *bool          `json:"casePassed"`
	Score      *float64       `json:"caseScore"`
	// RunVerdict is the run's verdict (see RunVerdict); read it with
	// Verdict, which also reads summaries written before it was recorded.
	RunVerdict   Verdict            `json:"verdict,omitempty"`
	IdentityHash string             `json:"identityHash,omitempty"` // see IdentityHash
	Metrics      map[string]float64 `json:"metrics"`
}

// SummaryBuilder accumulates a suite's runs into its summary. Add (or
// AddBrief) every item of the manifest, in order, then call Build. It
// keeps each run's sample only: the metrics' summaries are taken from the
// samples when the summary is built.
type SummaryBuilder struct {
	suiteID string
	totals  Outcome
	cases   map[string]*caseAcc
	order   []string
	samples []Sample
}

type caseAcc struct {
	out     CaseOutcome
	samples []int // its samples, by index in SummaryBuilder.samples
}

// NewSummaryBuilder starts the summary of the suite suiteID.
func NewSummaryBuilder(suiteID string) *SummaryBuilder {
	return &SummaryBuilder{suiteID: suiteID, cases: map[string]*caseAcc{}}
}

// Add counts item, the index-th of the manifest. meta and grading are the
// run's records (nil when the item never produced them).
func (b *SummaryBuilder) Add(index int, item SuiteItem, meta *Metadata, grading *Grading) {
	b.AddBrief(index, item, NewRunBrief(meta, grading))
}

// AddBrief counts item, the index-th of the manifest, from the brief of
// its records (nil when the item never produced them), as Add counts it
// from the records. The run's sample holds the brief's metrics map.
func (b *SummaryBuilder) AddBrief(index int, item SuiteItem, r *RunBrief) {
	b.totals.add(item)
	acc := b.cases[item.CaseID]
	if acc == nil {
		acc = &caseAcc{out: CaseOutcome{CaseID: item.CaseID, Cluster: item.Cluster}}
		b.cases[item.CaseID] = acc
		b.order = append(b.order, item.CaseID)
	}
	acc.out.add(item)
	if item.Status != ItemCompleted {
		return
	}
	s := Sample{
		Index: index, CaseID: item.CaseID, Repetition: item.Repetition, Cluster: item.Cluster,
		RunDir: item.RunDir, ExitReason: item.ExitReason, Passed: item.Passed, Score: item.Score,
		RunVerdict: item.Verdict(),
	}
	if r != nil && r.recorded {
		s.IdentityHash, s.Metrics = r.identityHash, r.metrics
	}
	if s.Metrics == nil {
		s.Metrics = map[string]float64{}
	}
	if r != nil && r.graded {
		s.Passed, s.Score = r.passed, r.score
	}
	acc.samples = append(acc.samples, len(b.samples))
	b.samples = append(b.samples, s)
}

// Build returns the summary with the given status.
func (b *SummaryBuilder) Build(status SuiteStatus, now time.Time) *SuiteSummary {
	s := &SuiteSummary{
		SchemaVersion: SchemaVersion, SuiteID: b.suiteID, GeneratedAt: now.UTC(), Status: status,
		Totals: b.totals, Metrics: b.summarize(nil), Cases: make([]CaseOutcome, 0, len(b.order)), Samples: b.samples,
	}
	s.Totals.finish()
	for _, id := range b.order {
		acc := b.cases[id]
		acc.out.finish()
		acc.out.Metrics = b.summarize(acc.samples)
		s.Cases = append(s.Cases, acc.out)
	}
	if s.Samples == nil {
		s.Samples = []Sample{}
	}
	return s
}

// summarize summarizes each metric over the samples numbered which (all
// of them when which is nil): a run's metrics, and its score as "score".
func (b *SummaryBuilder) summarize(which []int) map[string]MetricSummary {
	each := func(f func(s *Sample)) {
		if which == nil {
			for i := range b.samples {
				f(&b.samples[i])
			}
			return
		}
		for _, i := range which {
			f(&b.samples[i])
		}
	}
	counts := map[string]int{}
	each(func(s *Sample) {
		for k := range s.Metrics {
			counts[k]++
		}
		if s.Score != nil {
			counts["score"]++
		}
	})
	out := make(map[string]MetricSummary, len(counts))
	var values []float64
	for k, n := range counts {
		values = slices.Grow(values[:0], n)
		each(func(s *Sample) {
			if v, ok := s.Metrics[k]; ok {
				values = append(values, v)
			}
			if k == "score" && s.Score != nil {
				values = append(values, *s.Score)
			}
		})
		out[k] = Summarize(values)
	}
	return out
}
