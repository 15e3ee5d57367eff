package report

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/record"
)

// clip cuts s to at most n bytes (on a character boundary) and says so.
// Control characters but newline and tab are shown as U+FFFD (a carriage
// return ends a line): the page shows text as written, lines included,
// and nothing that could act on a terminal it is copied to.
func clip(s string, n int) string {
	s = plain(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… [cut: %s more]", bytesText(int64(len(s)-cut)))
}

// jsonText is v as indented JSON, clipped to n bytes.
func jsonText(v any, n int) string {
	if s, ok := v.(string); ok {
		return clip(s, n)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the page escapes; the text must read as written
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return clip(fmt.Sprint(v), n)
	}
	return clip(strings.TrimSuffix(b.String(), "\n"), n)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05.000Z")
}

func durationText(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return d.String()
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + "s"
	}
	return d.Round(time.Second).String()
}

func msText(ms float64) string { return durationText(time.Duration(ms * float64(time.Millisecond))) }

// tokenText is "1234 (in 1000, out 200, cache read 34, cache write 0)", or
// "unavailable" for an agent that reported no usage.
func tokenText(u *lux.TokenUsage) string {
	if u == nil {
		return "unavailable"
	}
	return fmt.Sprintf("%d (in %d, out %d, cache read %d, cache write %d)", u.Total(), u.Input, u.Output, u.CacheRead, u.CacheCreation)
}

func scoreText(g *record.Grading) string {
	if g == nil || g.Score == nil {
		return "–"
	}
	return score(*g.Score)
}

// score formats a score in [0, 1] as the comparisons do: "0.750".
func score(v float64) string { return compare.FormatValue("score", v) }

func pct(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" }

func bytesText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// plain is s with CRLF and lone CRs as newlines and every other control
// character but tab shown as U+FFFD.
func plain(s string) string {
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

func isControl(r rune) bool {
	return r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0))
}
