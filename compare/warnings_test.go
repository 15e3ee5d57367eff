package compare

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// quietSuites are eight cases, one run each, that pass on both sides;
// every case's duration varies, while its agent tokens and cost rise by
// the same amount in B (a degenerate, unbounded change), and its tool
// calls do not move at all.
func quietSuites() (a, b []rv) {
	for i := range 8 {
		id := caseID(i)
		ra, rb := rvPass(id, float64(100+10*i)), rvPass(id, float64(130+i*i))
		ra.metrics["agent.total"], rb.metrics["agent.total"] = 1000, 1500
		ra.metrics["cost.usd"], rb.metrics["cost.usd"] = 0.25, 0.30
		ra.metrics["toolCalls"], rb.metrics["toolCalls"] = float64(i), float64(i)
		a, b = append(a, ra), append(b, rb)
	}
	return a, b
}

// A caveat is said once per comparison, naming the metrics it concerns;
// the advice to use hoeffding, which needs values in [0, 1], is never
// given for tokens or cost.
func TestEffectWarningsOnceAndInRange(t *testing.T) {
	ra, rb := quietSuites()
	c := rvCompare(t, rvSuite(ra...), rvSuite(rb...), Options{})

	seen := map[string]bool{}
	var degenerate *EffectWarning
	for i, w := range c.EffectWarnings {
		key := w.Code + "\x00" + w.Message
		assert.False(t, seen[key], "warning said twice: %s", w.Message)
		seen[key] = true
		assert.NotEmpty(t, w.Metrics, w.Message)
		if w.Code == WarnDegenerate {
			degenerate = &c.EffectWarnings[i]
		}
	}
	require.NotNil(t, degenerate, "%+v", c.EffectWarnings)
	assert.Equal(t, []string{"agent.total", "cost.usd"}, degenerate.Metrics)
	assert.NotContains(t, strings.ToLower(degenerate.Message), "hoeffding", "tokens and cost are not in [0, 1]")
	for _, e := range c.Effects {
		for _, w := range e.Warnings {
			if !bounded(e.Unit) {
				assert.NotContains(t, strings.ToLower(w.Message), "hoeffding", e.Metric)
				assert.NotContains(t, strings.ToLower(w.Message), "wilson", e.Metric)
			}
		}
	}

	text := suiteText(t, c)
	assert.NotContains(t, strings.ToLower(text), "hoeffding")
	assert.Equal(t, 1, strings.Count(text, "degenerate sample"), text)
}

// Eight cases that all went from pass to fail: the pass rate and the
// score changed by the same amount in every case. The hoeffding advice
// applies to them, and names only them.
func TestDegenerateBoundedWarningNamesOnlyBoundedMetrics(t *testing.T) {
	var a, b []rv
	for i := range 8 {
		ra, rb := rvPass(caseID(i), 100), rvFail(caseID(i), 100)
		ra.metrics["agent.total"], rb.metrics["agent.total"] = 1000, 1500
		a, b = append(a, ra), append(b, rb)
	}
	c := rvCompare(t, rvSuite(a...), rvSuite(b...), Options{})
	var hoeffding []string
	for _, w := range c.EffectWarnings {
		if strings.Contains(w.Message, "hoeffding") {
			hoeffding = append(hoeffding, w.Metrics...)
		}
	}
	assert.Equal(t, []string{MetricPassRate, MetricScore}, hoeffding)
}

// A metric no case changed is one line of text, "no change in any
// case", not an interval row; its effect says so in JSON (noChange) and
// carries no degenerate-sample warning.
func TestNoChangeIsALineNotARow(t *testing.T) {
	ra, rb := quietSuites()
	c := rvCompare(t, rvSuite(ra...), rvSuite(rb...), Options{})
	for _, m := range []string{MetricPassRate, MetricScore, "toolCalls"} {
		e := effectOf(t, c, m)
		assert.True(t, e.NoChange, m)
		assert.NotContains(t, codes(e.Warnings), WarnDegenerate, m)
		require.NotNil(t, e.Interval, "old fields stay: %s", m)
	}
	for _, m := range []string{"durationMs", "agent.total", "cost.usd"} {
		assert.False(t, effectOf(t, c, m).NoChange, m)
	}

	text := suiteText(t, c)
	table := text[strings.Index(text, "Paired effects"):]
	table = table[:strings.Index(table, "\n\n")]
	for _, label := range []string{"pass rate", "score", "tool calls"} {
		assert.NotRegexp(t, fmt.Sprintf(`(?m)^  %s\s+[0-9]`, label), table, "no row for %s", label)
	}
	assert.Regexp(t, `\n  no change in any case: pass rate, score, .*tool calls`, table)
	assert.Regexp(t, `(?m)^  agent tokens\s+1000`, table)
	assert.Contains(t, text, "pass rate: no change in any case")

	raw, err := json.Marshal(c)
	require.NoError(t, err)
	var doc struct {
		Effects []struct {
			Metric   string `json:"metric"`
			NoChange *bool  `json:"noChange"`
		} `json:"effects"`
		EffectWarnings []struct {
			Code    string   `json:"code"`
			Message string   `json:"message"`
			Metrics []string `json:"metrics"`
		} `json:"effectWarnings"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	for _, e := range doc.Effects {
		require.NotNil(t, e.NoChange, e.Metric)
	}
	require.NotEmpty(t, doc.EffectWarnings)
}
