package report

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func seqFixture() SeqSeries {
	return SeqSeries{Candidate: "variant-x", Title: "pass rate effect ≥ 0 (default, validation)", Test: "sign-test", Stop: "crossed",
		Alpha: 0.025, Of: "win rate", Min: 0, Max: 1, Ref: 0.5,
		Points: []SeqSeriesPoint{
			{Round: 1, LogE: math.Log(5.4), Lower: 0.3, Upper: 1, Estimate: 1},
			{Round: 2, LogE: math.Log(56.9), Lower: 0.6, Upper: 1, Estimate: 1},
		}}
}

// The e-value axis runs over powers of 10 from 10⁻¹ to 10 × 1/α rounded
// up (here 10⁻¹ … 10³ over y 190 … 34), so 1/α = 40 sits at
// 190 − (log₁₀ 40 + 1)/4 · 156 and e = 1 (round 0) at 190 − 156/4.
func TestSeqChartPlacesTheThresholdAndTheEProcessOnALogScale(t *testing.T) {
	c := seqChart("seq-0", seqFixture())
	assert.InDelta(t, 190-(math.Log10(40)+1)/4*156, c.ThresholdY, 1e-9)
	assert.Equal(t, "1/α = 40", c.ThresholdLabel)
	pts := strings.Fields(c.EPoints)
	require.Len(t, pts, 3)
	assert.Equal(t, "70.0,151.0", pts[0], "round 0: e = 1")
	assert.Equal(t, "430.0,"+f1(190-(math.Log10(56.9)+1)/4*156), pts[2])
	var labels []string
	for _, tk := range c.ETicks {
		labels = append(labels, tk.Label)
	}
	assert.Equal(t, []string{"0.1", "1", "10", "100", "1000"}, labels)
	assert.InDelta(t, 190-0.5*156, c.RefY, 1e-9)
	// The band: the upper bounds left to right, then the lower bounds back.
	assert.Equal(t, "540.0,34.0 720.0,34.0 900.0,34.0 900.0,96.4 720.0,143.2 540.0,190.0", c.Band)
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// The experiment page draws one chart per sequential gate, inline, with
// no script.
func TestExperimentPageDrawsTheSequentialCharts(t *testing.T) {
	r := ExperimentReport{Dir: "$LEDGER", ExperimentID: "x", Status: "passed", Outcome: "promote", Sentence: "promote variant-x",
		Sequential: []SeqSeries{seqFixture()},
		Gates:      []ExperimentGate{{Candidate: "variant-y", Text: "…", Inconclusive: true, Undecided: "no decision within the rounds allowed"}}}
	html := string(render(t, Experiment(r)))
	assert.Contains(t, html, "<h2>Sequential tests</h2>")
	assert.Contains(t, html, `<svg class="seqchart" id="seq-0"`)
	assert.Contains(t, html, `<polyline class="eprocess" points="70.0,151.0 `)
	assert.Contains(t, html, `class="threshold"`)
	assert.Contains(t, html, "1/α = 40")
	assert.Contains(t, html, "undecided: no decision within the rounds allowed")
	i := strings.Index(html, `id="seq-0"`)
	j := strings.Index(html[i:], "</svg>")
	assert.NotContains(t, html[i:i+j], "<script")
}
