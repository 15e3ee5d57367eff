package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Formatting of values for the text reports.

// formatValue formats a (mean) value of a metric in its unit.
func formatValue(unit string, v float64) string {
	switch unit {
	case "fraction":
		return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
	case "score":
		return strconv.FormatFloat(v, 'f', 3, 64)
	case "ms":
		return formatMs(v, false)
	case "tokens", "bytes":
		s := trimFloat(v, 1)
		if unit == "bytes" {
			s += " B"
		}
		return s
	case "usd":
		return "$" + dollars(v)
	}
	return trimFloat(v, 2)
}

// formatDelta formats a difference of a metric in its unit, with its sign;
// fractions are in percentage points.
func formatDelta(unit string, d float64) string {
	if d == 0 {
		d = 0 // no negative zero
	}
	sign := "+"
	if d < 0 {
		sign = "-"
	}
	a := math.Abs(d)
	switch unit {
	case "fraction":
		return sign + strconv.FormatFloat(100*a, 'f', 1, 64) + " pts"
	case "usd":
		return sign + "$" + dollars(a)
	case "ms":
		return sign + formatMs(a, false)
	}
	return sign + strings.TrimPrefix(formatValue(unit, a), "+")
}

// dollars formats an amount with four decimals, or, below a hundredth of
// a cent, with two significant digits so that it does not read as 0.
func dollars(v float64) string {
	if v != 0 && math.Abs(v) < 0.00005 {
		return trimFloat(v, int(-math.Floor(math.Log10(math.Abs(v))))+1)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// formatMs formats milliseconds as "850ms" or "1.25s".
func formatMs(ms float64, exact bool) string {
	switch a := math.Abs(ms); {
	case a < 10:
		return trimFloat(ms, 1) + "ms"
	case a < 1000:
		return trimFloat(ms, 0) + "ms"
	}
	if exact {
		return strconv.FormatFloat(ms/1000, 'f', -1, 64) + "s"
	}
	return strconv.FormatFloat(ms/1000, 'f', 2, 64) + "s"
}

// trimFloat formats v with at most prec decimals, without trailing zeros.
func trimFloat(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// arrow is ↑ for a rise, ↓ for a fall and = for no change.
func arrow(d float64) string {
	switch {
	case d > 0:
		return "↑"
	case d < 0:
		return "↓"
	}
	return "="
}

func fmtScore(p *float64) string {
	if p == nil {
		return "none"
	}
	return trimFloat(*p, 3)
}

// compactJSON is v as one line of JSON, cut to max runes with an ellipsis.
func compactJSON(v any, max int) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	s := string(b)
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return s
}

// shortHash is the first 12 characters of a hash.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

// textWriter writes lines and keeps the first error.
type textWriter struct {
	w   io.Writer
	err error
}

func (t *textWriter) line(format string, args ...any) {
	if t.err != nil {
		return
	}
	_, t.err = fmt.Fprintf(t.w, format+"\n", args...)
}

// row writes an indented label padded to width, then the value.
func (t *textWriter) row(indent, width int, label, value string) {
	pad := width - len([]rune(label))
	if pad < 1 {
		pad = 1
	}
	t.line("%s%s%s%s", strings.Repeat(" ", indent), label, strings.Repeat(" ", pad), value)
}

// raw writes text that already ends in a newline.
func (t *textWriter) raw(text string) {
	if t.err != nil {
		return
	}
	_, t.err = io.WriteString(t.w, text)
}

// block writes text indented by n spaces, line by line.
func (t *textWriter) block(n int, text string) {
	for _, l := range strings.Split(text, "\n") {
		t.line("%s%s", strings.Repeat(" ", n), l)
	}
}

// mismatchValue is a mismatch's value as text: short hashes, compact JSON.
func mismatchValue(f Field, v any) string {
	if s, ok := v.(string); ok && strings.HasSuffix(string(f), "Hash") {
		if s == "" {
			return `""`
		}
		return shortHash(s)
	}
	return compactJSON(v, textValue)
}

// writeMismatch writes one identity mismatch: the field, the flag that
// accepts it, and what differs inside it as "path: A → B", at most
// textChanges lines.
func (t *textWriter) writeMismatch(indent int, m Mismatch) {
	label := string(m.Field)
	if m.Within != "" {
		label += fmt.Sprintf(" (within %s: its runs disagree)", strings.ToUpper(m.Within))
	}
	switch {
	case m.Varied:
		label += " (varied on purpose)"
	case m.Flag != "":
		label += " — accept with " + m.Flag
	default:
		label += " — cannot vary"
	}
	t.line("%s%s", strings.Repeat(" ", indent), label)
	pad := strings.Repeat(" ", indent+4)
	if len(m.Changes) == 0 {
		t.line("%s%s → %s", pad, mismatchValue(m.Field, m.A), mismatchValue(m.Field, m.B))
	}
	for i, ch := range m.Changes {
		if i == textChanges {
			break
		}
		path := ch.Path
		if path != "" {
			path += ": "
		}
		t.line("%s%s%s → %s", pad, path, changeValue(ch.Path, ch.A), changeValue(ch.Path, ch.B))
	}
	if more := len(m.Changes) + m.MoreChanges - textChanges; more > 0 {
		t.line("%s… %d more %s", pad, more, plural(more, "change", "changes"))
	}
	if m.Note != "" {
		t.block(indent+4, m.Note)
	}
}

// acceptAll writes the one command line that accepts every mismatch that
// is not varied, when there is one.
func (t *textWriter) acceptAll(ms []Mismatch) {
	if flags := varyFlags(ms); flags != "" {
		t.line("To compare anyway, name what B changes on purpose: lux compare %s A B", flags)
	}
}
