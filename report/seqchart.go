package report

import (
	"fmt"
	"math"
	"strings"
)

// SeqSeries is one sequential gate of an experiment over its rounds: its
// e-process and its confidence sequence after each round.
type SeqSeries struct {
	Candidate string
	Title     string // the gate, e.g. "pass rate effect ≥ 0 (default, validation)"
	Test      string // sign-test, betting, empirical-bernstein
	Stop      string // crossed, futile, max-reached, continuing
	Alpha     float64
	// Of is what the sequence bounds ("win rate" or "effect"), on the
	// axis [Min, Max], with a reference line at Ref (½ for a win rate, the
	// gate's bound for an effect).
	Of            string
	Min, Max, Ref float64
	Points        []SeqSeriesPoint
}

// SeqSeriesPoint is a gate after one round.
type SeqSeriesPoint struct {
	Round                  int
	LogE                   float64 // natural log of the e-process
	Lower, Upper, Estimate float64
}

// Geometry of a sequential chart, in SVG user units: two panels side by
// side, the e-process on a log scale with its threshold on the left, the
// confidence sequence as a band on the right, rounds along both.
const (
	seqWidth  = 920
	seqHeight = 230
	seqTop    = 34
	seqBottom = 190
	seqLeftX0 = 70
	seqLeftX1 = 430
	seqRightX = 540
	seqRightW = 360
)

// SeqChart is the inline SVG chart of a SeqSeries; every coordinate is
// computed here, so the template only places them and no script runs.
type SeqChart struct {
	ID, Title, Caption string
	Width, Height      int
	Top, Bottom        float64
	LeftX0, LeftX1     float64
	RightX0, RightX1   float64
	EPoints            string // the e-process polyline
	ThresholdY         float64
	ThresholdLabel     string
	ETicks             []SeqTick // powers of 10 on the e-value axis
	Band               string    // the sequence's polygon
	EstPoints          string    // the estimate's polyline
	RefY               float64
	RefLabel           string
	CSTicks            []SeqTick
	LeftRounds         []SeqTick // round ticks of the left panel (X)
	RightRounds        []SeqTick
}

// SeqTick is an axis tick: its position and label.
type SeqTick struct {
	X, Y  float64
	Label string
}

// seqChart draws a series; round 0 is the start (e-value 1, the whole
// range).
func seqChart(id string, s SeqSeries) *SeqChart {
	c := &SeqChart{ID: id, Width: seqWidth, Height: seqHeight, Top: seqTop, Bottom: seqBottom,
		LeftX0: seqLeftX0, LeftX1: seqLeftX1, RightX0: seqRightX, RightX1: seqRightX + seqRightW}
	c.Title = fmt.Sprintf("%s: %s", s.Candidate, s.Title)
	last := 0
	if n := len(s.Points); n > 0 {
		last = s.Points[n-1].Round
	}
	c.Caption = fmt.Sprintf("%s after each of %d rounds: left, the e-process (log scale) against the threshold 1/α = %.4g; right, the %g%% confidence sequence of the %s. Stop: %s.",
		s.Test, last, 1/s.Alpha, 100*(1-s.Alpha), s.Of, s.Stop)
	rounds := max(1, last)
	xOf := func(x0, x1 float64, r int) float64 { return x0 + (x1-x0)*float64(r)/float64(rounds) }
	// The e-value axis: log10, from at most 10⁻¹ to at least 10 × 1/α.
	lg := func(logE float64) float64 { return logE / math.Ln10 }
	lo, hi := -1.0, math.Ceil(lg(-math.Log(s.Alpha)))+1
	for _, p := range s.Points {
		lo, hi = math.Min(lo, math.Floor(lg(p.LogE))), math.Max(hi, math.Ceil(lg(p.LogE)))
	}
	eY := func(logE float64) float64 {
		return seqBottom - (lg(logE)-lo)/(hi-lo)*(seqBottom-seqTop)
	}
	step := math.Max(1, math.Ceil((hi-lo)/6))
	for k := lo; k <= hi; k += step {
		c.ETicks = append(c.ETicks, SeqTick{X: seqLeftX0 - 6, Y: eY(k * math.Ln10), Label: powerLabel(k)})
	}
	c.ThresholdY = eY(-math.Log(s.Alpha))
	c.ThresholdLabel = fmt.Sprintf("1/α = %.4g", 1/s.Alpha)
	csY := func(v float64) float64 {
		v = math.Min(s.Max, math.Max(s.Min, v))
		return seqBottom - (v-s.Min)/(s.Max-s.Min)*(seqBottom-seqTop)
	}
	for i := 0; i <= 4; i++ {
		v := s.Min + (s.Max-s.Min)*float64(i)/4
		c.CSTicks = append(c.CSTicks, SeqTick{X: c.RightX0 - 6, Y: csY(v), Label: fmt.Sprintf("%.3g", v)})
	}
	c.RefY, c.RefLabel = csY(s.Ref), fmt.Sprintf("%.3g", s.Ref)
	var ep, est, upper, lower []string
	pt := func(x, y float64) string { return fmt.Sprintf("%.1f,%.1f", x, y) }
	ep = append(ep, pt(xOf(seqLeftX0, seqLeftX1, 0), eY(0)))
	upper = append(upper, pt(xOf(c.RightX0, c.RightX1, 0), csY(s.Max)))
	lower = append(lower, pt(xOf(c.RightX0, c.RightX1, 0), csY(s.Min)))
	for _, p := range s.Points {
		ep = append(ep, pt(xOf(seqLeftX0, seqLeftX1, p.Round), eY(p.LogE)))
		x := xOf(c.RightX0, c.RightX1, p.Round)
		upper = append(upper, pt(x, csY(p.Upper)))
		lower = append(lower, pt(x, csY(p.Lower)))
		est = append(est, pt(x, csY(p.Estimate)))
	}
	c.EPoints, c.EstPoints = strings.Join(ep, " "), strings.Join(est, " ")
	for i, j := 0, len(lower)-1; i < j; i, j = i+1, j-1 {
		lower[i], lower[j] = lower[j], lower[i]
	}
	c.Band = strings.Join(append(upper, lower...), " ")
	tickEvery := max(1, rounds/10)
	for r := 0; r <= rounds; r += tickEvery {
		c.LeftRounds = append(c.LeftRounds, SeqTick{X: xOf(seqLeftX0, seqLeftX1, r), Y: seqBottom + 16, Label: fmt.Sprint(r)})
		c.RightRounds = append(c.RightRounds, SeqTick{X: xOf(c.RightX0, c.RightX1, r), Y: seqBottom + 16, Label: fmt.Sprint(r)})
	}
	return c
}

// powerLabel is 10^k written out: 0.01, 0.1, 1, 10, 100, then 1e+03.
func powerLabel(k float64) string {
	if k >= -2 && k <= 3 {
		return fmt.Sprintf("%g", math.Pow(10, k))
	}
	return fmt.Sprintf("1e%+.0f", k)
}
