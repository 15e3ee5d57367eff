// Package textline fits text a run recorded (an agent's reason, an
// assertion's comment) to a terminal or a report: on one line, or with its
// lines kept and control characters shown.
package textline

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// DetailBytes is how many bytes of an assertion's comment or error a
// report keeps with its lines (Keep).
const DetailBytes = 4096

// One is s on one line (its runs of white space one space), cut at max
// characters with an ellipsis.
func One(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > max {
		return string([]rune(s)[:max]) + "…"
	}
	return s
}

// Keep is s with its lines kept, for a terminal or a report: CRLF
// and lone CRs become newlines, trailing blanks and blank ends go, other
// control characters (an escape sequence) are shown as U+FFFD, and it is
// cut at max bytes on a character boundary, saying so.
func Keep(s string, max int) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(strings.Map(func(r rune) rune {
			if r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)) {
				return '\uFFFD'
			}
			return r
		}, l), " \t")
	}
	s = strings.Trim(strings.Join(lines, "\n"), "\n")
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + fmt.Sprintf("… [cut: %d more bytes]", len(s)-cut)
	}
	return s
}
