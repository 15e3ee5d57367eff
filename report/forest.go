package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/luxeval/lux/compare"
)

// Geometry of a forest plot, in SVG user units. Every row has its own
// scale, symmetric about 0, so the zero line is one vertical line through
// all rows; the ends of a row's axis are labelled with its range.
const (
	forestWidth     = 920
	forestLabelW    = 250 // metric name, method and units
	forestPlotX0    = 260
	forestPlotX1    = 560
	forestValueX    = 575 // the values written beside the marks
	forestRowH      = 34
	forestTop       = 28
	forestBottomPad = 14
)

// ForestPlot is an SVG forest plot: one row per effect, the estimate as a
// point, its confidence interval as a bar, and a zero line.
type ForestPlot struct {
	ID      string // unique on its page, for the accessible name
	Title   string
	Caption string
	Width   int
	Height  int
	ZeroX   float64
	X0, X1  float64 // the plot area
	Rows    []ForestRow
	// NoChange names, in one line, the metrics no paired case changed:
	// there is nothing to estimate, so they get no row.
	NoChange string
}

// ForestRow is one effect of a forest plot.
type ForestRow struct {
	Label  string // "pass rate"
	Detail string // "t, 95%, 20 cases in 8 clusters"
	Value  string // "-15.0 pts [-26.0 pts, -4.0 pts]"
	// Outcome is "better", "worse" or "" (no significant change, or no direction).
	Outcome string
	// Y is the row's centre line; LabelY and DetailY the baselines of its
	// two lines of text.
	Y, LabelY, DetailY float64
	// X is the estimate's position; Lo and Hi the interval's ends (equal to
	// X when HasInterval is false).
	X, Lo, Hi   float64
	HasInterval bool
	// Scale is the value at either end of the row's axis: the axis spans
	// [-Scale, +Scale]. ScaleMin and ScaleMax are its ends formatted in
	// the metric's unit.
	Scale              float64
	ScaleMin, ScaleMax string
	// Unavailable says why there is no mark at all.
	Unavailable string
}

func (p *ForestPlot) halfWidth() float64 { return (p.X1 - p.X0) / 2 }

// pos maps v on a row of scale s to its x coordinate.
func (p *ForestPlot) pos(v, s float64) float64 {
	return p.ZeroX + v/s*p.halfWidth()
}

func newForest(id, title, caption string) *ForestPlot {
	return &ForestPlot{
		ID: id, Title: title, Caption: caption, Width: forestWidth,
		X0: forestPlotX0, X1: forestPlotX1, ZeroX: (forestPlotX0 + forestPlotX1) / 2,
	}
}

// add appends a row for an estimate and its interval (lo, hi; ignored
// unless hasInterval) in unit.
func (p *ForestPlot) add(label, detail, unit string, est, lo, hi float64, hasInterval bool, outcome string) {
	extent := math.Abs(est)
	if hasInterval {
		extent = math.Max(extent, math.Max(math.Abs(lo), math.Abs(hi)))
	}
	s := niceScale(extent, unit)
	r := ForestRow{
		Label: label, Detail: detail, Outcome: outcome, HasInterval: hasInterval,
		Scale:    s,
		ScaleMin: compare.FormatDelta(unit, -s), ScaleMax: compare.FormatDelta(unit, s),
	}
	r.setY(len(p.Rows))
	r.X = p.pos(est, s)
	r.Lo, r.Hi = r.X, r.X
	r.Value = compare.FormatDelta(unit, est)
	if hasInterval {
		r.Lo, r.Hi = p.pos(lo, s), p.pos(hi, s)
		r.Value += fmt.Sprintf(" [%s, %s]", compare.FormatDelta(unit, lo), compare.FormatDelta(unit, hi))
	}
	if outcome != "" {
		r.Value += " · " + outcome
	}
	p.Rows = append(p.Rows, r)
	p.resize()
}

// addUnavailable appends a row without a mark.
func (p *ForestPlot) addUnavailable(label, why string) {
	r := ForestRow{Label: label, Detail: "no interval", Unavailable: why}
	r.setY(len(p.Rows))
	p.Rows = append(p.Rows, r)
	p.resize()
}

func (r *ForestRow) setY(i int) {
	r.Y = float64(forestTop + i*forestRowH + forestRowH/2)
	r.LabelY, r.DetailY = r.Y-2, r.Y+11
}

func (p *ForestPlot) resize() {
	p.Height = forestTop + len(p.Rows)*forestRowH + forestBottomPad
}

// niceScale is the half-width of a row's axis: a round number (1, 2 or 5
// times a power of ten) above extent with some room.
func niceScale(extent float64, unit string) float64 {
	if extent == 0 || math.IsNaN(extent) || math.IsInf(extent, 0) {
		if unit == "fraction" || unit == "score" {
			return 0.1
		}
		return 1
	}
	x := extent * 1.1
	p := math.Pow(10, math.Floor(math.Log10(x)))
	var s float64
	switch m := x / p; {
	case m <= 1:
		s = p
	case m <= 2:
		s = 2 * p
	case m <= 5:
		s = 5 * p
	default:
		s = 10 * p
	}
	if (unit == "fraction" || unit == "score") && extent <= 1 && s > 1 {
		s = 1 // a change of a share or a score stays within ±1
	}
	return s
}

// effectsForest is the forest plot of a suite comparison's effects.
func effectsForest(effects []compare.Effect) *ForestPlot {
	p := newForest("forest-effects", "Paired effects, B − A",
		"Each row is one metric: the point is the mean per-case difference B − A, the bar its confidence interval. "+
			"Every row has its own scale, symmetric about 0 (the range is written at the ends of its axis); the vertical line is 0.")
	var same []string
	for _, e := range effects {
		label := compare.MetricLabel(e.Metric)
		if e.NoChange {
			same = append(same, label)
			continue
		}
		if e.Interval == nil {
			why := e.Unavailable
			if why == "" {
				why = "no interval"
			}
			p.addUnavailable(label, why)
			continue
		}
		p.add(label, effectDetail(e), e.Unit, e.Delta, e.Interval.Lower, e.Interval.Upper, true, e.Outcome)
	}
	if len(same) > 0 {
		p.NoChange = "No change in any paired case (not plotted): " + strings.Join(same, ", ") + "."
	}
	return p
}

// effectDetail is "t, 95%, 20 cases in 8 clusters".
func effectDetail(e compare.Effect) string {
	iv := e.Interval
	s := fmt.Sprintf("%s, %g%%, %d %s", iv.Method, 100*iv.Level, e.Cases, plural(e.Cases, "case", "cases"))
	if iv.Clustered {
		s += fmt.Sprintf(" in %d clusters", iv.Units)
	}
	return s
}

// maxCaseRows caps the per-case plot.
const maxCaseRows = 200

// casesForest plots, per paired case whose pass rate changed, the change
// B − A (a point: one case has no interval). It returns nil when no case
// changed.
func casesForest(cases []compare.CaseDelta) (*ForestPlot, int) {
	var changed []compare.CaseDelta
	for _, c := range cases {
		if c.PassRate.A != c.PassRate.B {
			changed = append(changed, c)
		}
	}
	if len(changed) == 0 {
		return nil, 0
	}
	p := newForest("forest-cases", "Pass rate by case, B − A",
		"One row per paired case whose pass rate changed: the change of its pass rate over its repetitions, a point without an interval; "+
			"the label gives the one-sided p-value of Fisher's exact test on the case's own runs.")
	for i, c := range changed {
		if i == maxCaseRows {
			break
		}
		detail := fmt.Sprintf("%d→%d runs, %s", c.Runs.A, c.Runs.B, caseTest(c))
		if c.Cluster != "" {
			detail += ", cluster " + c.Cluster
		}
		outcome := ""
		switch c.Status {
		case compare.CaseRegressed:
			outcome = "regressed"
		case compare.CaseImproved:
			outcome = "improved"
		}
		p.add(c.CaseID, detail, "fraction", c.PassRate.B-c.PassRate.A, 0, 0, false, outcome)
	}
	return p, max(0, len(changed)-maxCaseRows)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// caseTest names the per-case test of a changed case and its outcome:
// "Fisher one-sided p = 0.05", and the gate rule it fails, if any.
func caseTest(c compare.CaseDelta) string {
	if c.PassRate.A == c.PassRate.B {
		return "no change"
	}
	p := c.FallP
	if c.PassRate.B > c.PassRate.A {
		p = c.RiseP
	}
	s := "Fisher one-sided p = " + strconv.FormatFloat(p, 'g', 3, 64)
	if !c.Testable {
		s += " (too few runs to test)"
	}
	if c.GateRule != "" {
		s += ", fails the gate (" + c.GateRule + ")"
	}
	return s
}
