package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/luxeval/lux/stats"
)

// Effect is the paired effect of B against A on one metric: over the cases
// paired between the sides, the mean of the per-case differences
// (B − A, each case first reduced to the mean of its runs), with a
// confidence interval from stats.Paired.
type Effect struct {
	Metric string `json:"metric"`
	Unit   string `json:"unit"`   // see MetricUnit
	Better string `json:"better"` // "higher", "lower" or "" (see MetricBetter)
	// A and B are the means of the per-case means over the cases used;
	// Delta = B − A is the estimate.
	A     float64 `json:"a"`
	B     float64 `json:"b"`
	Delta float64 `json:"delta"`
	// Cases is the number of paired cases used; Dropped the paired cases
	// left out because some of their runs lack the metric.
	Cases   int `json:"cases"`
	Dropped int `json:"dropped"`
	// RunsWith counts the runs of each side that have the metric; a metric
	// no run of either side has (usage an agent never reports) is left
	// out of the text.
	RunsWith Change[int] `json:"runsWith"`
	// Interval is null when none could be computed (Unavailable says why).
	// For a bounded metric (a rate or a score) it lies within [−1, 1].
	Interval *Interval `json:"interval"`
	// Significant is true when the interval excludes 0. Outcome is then
	// "better" or "worse" for a metric with a direction, else "".
	Significant bool   `json:"significant"`
	Outcome     string `json:"outcome"`
	// NoChange is true when every paired case has the same value on both
	// sides (every difference is exactly 0): there is nothing to estimate,
	// so the text shows the metric in one line, "no change in any case",
	// rather than as an interval row, and a plot should leave it out. The
	// interval is still given (zero width, or the whole range with too few
	// units); the effect carries no warning about it.
	NoChange    bool      `json:"noChange"`
	Unavailable string    `json:"unavailable,omitempty"`
	Warnings    []Warning `json:"warnings"`
}

// Interval is the confidence interval of an effect.
type Interval struct {
	Lower     float64      `json:"lower"`
	Upper     float64      `json:"upper"`
	Method    stats.Method `json:"method"`
	Level     float64      `json:"level"`
	StdErr    float64      `json:"stdErr"`
	Units     int          `json:"units"` // independent units: clusters when clustered, else cases
	Clustered bool         `json:"clustered"`
	Resamples int          `json:"resamples,omitempty"`
	// Clipped is true when the method's interval reached beyond the range
	// the metric's difference can take and was cut to it, or when too few
	// units made it the whole range (the effect's warnings say which).
	Clipped bool `json:"clipped,omitempty"`
}

// MetricBetter says which way metric name improves: "higher" (pass rate,
// score, cache hit rates), "lower" (duration, tokens, cost, failed tool
// calls) or "" when neither is better in general (tool calls, interrupts,
// artifacts).
//
// Names that record.RunMetrics does not produce (a misspelt "agent.totl",
// say) have no direction, so they cannot be gated.
func MetricBetter(name string) string {
	tokens, isTokens := strings.CutPrefix(name, "agent.")
	if !isTokens {
		tokens, isTokens = strings.CutPrefix(name, "harness.")
	}
	switch {
	case name == MetricPassRate, name == MetricScore, isTokens && tokens == "cacheHitRate":
		return "higher"
	case name == "durationMs", name == "phase.agentMs", name == "phase.collectMs", name == "phase.gradingMs",
		name == "cost.usd",
		isTokens && (tokens == "input" || tokens == "output" || tokens == "cacheRead" || tokens == "cacheCreation" || tokens == "total"),
		name == "toolCalls.failed", name == "toolCalls.unresolved", name == "toolCalls.malformed",
		name == "toolCalls.unmatchedResults", name == "toolCalls.failureRate":
		return "lower"
	}
	return ""
}

// MetricUnit is the unit of metric name: "fraction" (0..1), "score"
// (0..1), "ms", "tokens", "usd", "bytes" or "count".
func MetricUnit(name string) string {
	switch {
	case name == MetricPassRate, strings.HasSuffix(name, "Rate"):
		return "fraction"
	case name == MetricScore:
		return "score"
	case name == "durationMs", strings.HasPrefix(name, "phase."):
		return "ms"
	case strings.HasPrefix(name, "agent."), strings.HasPrefix(name, "harness."):
		return "tokens"
	case name == "cost.usd":
		return "usd"
	case name == "artifacts.bytes":
		return "bytes"
	}
	return "count"
}

// metricLabels are the names people read for the common metrics.
var metricLabels = map[string]string{
	MetricPassRate:     "pass rate",
	MetricScore:        "score",
	"durationMs":       "duration",
	"agent.total":      "agent tokens",
	"harness.total":    "harness tokens",
	"cost.usd":         "agent cost",
	"toolCalls":        "tool calls",
	"toolCalls.failed": "failed tool calls",
	"interrupts":       "interrupts",
}

func metricLabel(name string) string {
	if l, ok := metricLabels[name]; ok {
		return l
	}
	return name
}

// pairedCase is a case present on both sides with matching identity.
type pairedCase struct {
	id string
	// unit labels the independent unit for package stats ("" for a case of
	// its own); cluster names it for people (see unitClusters).
	unit, cluster string
	a, b          *caseAcc
}

// effect computes the paired effect of one metric over the paired cases.
func effect(name string, cases []pairedCase, sa, sb *side, clustered bool, st settings) Effect {
	e := Effect{Metric: name, Unit: MetricUnit(name), Better: MetricBetter(name), Warnings: []Warning{}}
	before := make([]float64, 0, len(cases))
	after := make([]float64, 0, len(cases))
	var labels []string
	if clustered {
		labels = make([]string, 0, len(cases))
	}
	for _, pc := range cases {
		va, okA := sa.mean(pc.a, name)
		vb, okB := sb.mean(pc.b, name)
		if !okA || !okB {
			e.Dropped++
			continue
		}
		before, after = append(before, va), append(after, vb)
		if clustered {
			labels = append(labels, pc.unit)
		}
	}
	e.Cases = len(before)
	e.RunsWith = Change[int]{sa.runsHaving(name), sb.runsHaving(name)}
	if len(cases) == 0 {
		e.Unavailable = "no case is paired"
		return e
	}
	if e.Cases == 0 {
		e.Unavailable = fmt.Sprintf("no paired case has it in every run (A: %d of %d runs have it, B: %d of %d)",
			sa.runsHaving(name), sa.info.Runs, sb.runsHaving(name), sb.info.Runs)
		return e
	}
	e.A, e.B = mean(before), mean(after)
	e.Delta = e.B - e.A
	cfg := st.cfg
	// A rate or a score without spread gets stats' exact bound, not a
	// zero-width interval that claims certainty from a few cases.
	cfg.Bounded = bounded(e.Unit)
	iv, err := stats.Paired(before, after, labels, cfg)
	if err != nil {
		e.Unavailable = stats.Message(err)
		return e
	}
	e.Delta = iv.Estimate
	e.Interval = &Interval{
		Lower: iv.Lower, Upper: iv.Upper, Method: iv.Method, Level: iv.Level, StdErr: iv.StdErr,
		Units: iv.Units, Clustered: iv.Units < iv.N, Resamples: iv.Resamples,
	}
	for _, w := range iv.Warnings {
		e.Warnings = append(e.Warnings, e.warningOf(w))
	}
	e.bound(st.cfg.Level)
	e.NoChange = slices.Equal(before, after)
	if e.NoChange {
		e.Warnings = []Warning{}
	}
	lo, hi := e.Interval.Lower, e.Interval.Upper
	e.Significant = lo > 0 || hi < 0
	if e.Significant && e.Better != "" {
		if up := lo > 0; up == (e.Better == "higher") {
			e.Outcome = "better"
		} else {
			e.Outcome = "worse"
		}
	}
	return e
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// statsWarnings maps each stats warning code to the code this package
// gives it: one table, so that a new stats code fails a test until it is
// given one here.
var statsWarnings = map[stats.Code]string{
	stats.WarnFewClusters:  WarnFewClusters,
	stats.WarnFewUnits:     WarnFewUnits,
	stats.WarnDegenerate:   WarnDegenerate,
	stats.WarnFewResamples: WarnFewResamples,
}

// warningOf turns a stats warning on e's interval into a Warning with its
// code. The caveats whose advice depends on the metric are worded here,
// for the metric's range and for the methods a comparison takes: the
// hoeffding advice only for a rate or a score (values in [0, 1]), never
// wilson (which does not apply to paired differences). Their text names
// no metric, so that a comparison says each caveat once for all the
// metrics it concerns (SuiteComparison.EffectWarnings).
func (e *Effect) warningOf(w stats.Warning) Warning {
	code, ok := statsWarnings[w.Code]
	if !ok {
		code = WarnStats
	}
	iv := e.Interval
	switch {
	case iv == nil:
	case w.Code == stats.WarnDegenerate:
		who := "case"
		if iv.Clustered {
			who = "cluster"
		}
		advice := "it is the change in every " + who + ", not a certainty; add cases before relying on it"
		if bounded(e.Unit) {
			advice = fmt.Sprintf("for a rate or a score, -method %s (Options.Method) gives an interval whose width does not depend on the spread", stats.Hoeffding)
		}
		return Warning{Code: code, Message: fmt.Sprintf("degenerate sample: every %s changed by the same amount (no variation between the %d units), so the %s interval has zero width and says nothing about uncertainty; %s",
			who, iv.Units, iv.Method, advice)}
	case w.Code == stats.WarnFewUnits:
		return Warning{Code: code, Message: fmt.Sprintf("few units: %d cases (fewer than %d): a %s interval under-covers with few values; prefer %q (the default)",
			iv.Units, stats.FewUnits, iv.Method, stats.StudentT)}
	}
	return Warning{Code: code, Message: w.Message()}
}

// EffectWarning is one caveat of a suite comparison's effects, said once
// for every metric it concerns.
type EffectWarning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Metrics are the metrics whose effect carries it, in the effects'
	// order (MetricLabel gives the names people read).
	Metrics []string `json:"metrics"`
}

// effectWarnings groups the effects' warnings by code and message.
func effectWarnings(effects []Effect) []EffectWarning {
	out := []EffectWarning{}
	at := map[Warning]int{}
	for _, e := range effects {
		for _, w := range e.Warnings {
			i, ok := at[w]
			if !ok {
				i = len(out)
				at[w] = i
				out = append(out, EffectWarning{Code: w.Code, Message: w.Message})
			}
			if !slices.Contains(out[i].Metrics, e.Metric) {
				out[i].Metrics = append(out[i].Metrics, e.Metric)
			}
		}
	}
	return out
}
