package compare

// Exported views of the labels and formats the text reports use, so that
// other renderings (package report's HTML) say the same thing in the same
// words.

// MetricLabel is the name people read for metric ("agent tokens" for
// agent.total); a metric without one is its own name.
func MetricLabel(metric string) string { return metricLabel(metric) }

// FormatValue formats a (mean) value of a metric in its unit (see
// MetricUnit): "82.5%", "1.25s", "$0.0120".
func FormatValue(unit string, v float64) string { return formatValue(unit, v) }

// FormatDelta formats a difference in a metric's unit, with its sign;
// fractions are in percentage points: "-15.0 pts".
func FormatDelta(unit string, d float64) string { return formatDelta(unit, d) }

// Summary is the effect in one line, as the verdict's reasons give it:
// "-15.0 pts [-26.0 pts, -4.0 pts] (t, 95%, 20 cases in 8 clusters)".
func (e Effect) Summary() string { return effectSummary(e) }
