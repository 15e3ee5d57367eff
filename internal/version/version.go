// Package version reads the release number out of what an agent or its CLI
// prints for its version.
package version

import (
	"regexp"
	"strings"
)

// versionToken is a release number as agent CLIs print it: two to four
// dot-separated numbers, optionally "v"-prefixed, with a short pre-release
// or build suffix ("2.1.328", "v0.169.0", "2025.09.18-7ae6800").
var versionToken = regexp.MustCompile(`(?:^|[\s(/@])v?(\d+(?:\.\d+){1,3}(?:[-+][0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?)(?:$|[\s),;])`)

// maxVersionLine and maxVersionWord bound what is kept of a version line:
// anything longer reads as something other than a version (a stray line of
// output, a token) and is not kept.
const (
	maxVersionLine   = 80
	maxVersionWord   = 20
	maxVersionSuffix = 12
)

// Normalize returns the release number in a version string as a CLI
// or an agent reports it ("2.1.328 (Claude Code)" → "2.1.328", "codex-cli
// 0.169.0" → "0.169.0"), or "" when s holds none. Runs record both: the
// normalized version, which is what identifies the agent, and the raw string.
func Normalize(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxVersionLine {
		return ""
	}
	m := versionToken.FindStringSubmatch(s)
	if m == nil || len(m[1]) > maxVersionWord {
		return ""
	}
	if i := strings.IndexAny(m[1], "-+"); i >= 0 && len(m[1])-i-1 > maxVersionSuffix {
		return "" // a long suffix is no release tag; it could carry anything
	}
	return m[1]
}

// Line reports whether line reads as a version line and nothing
// else: short, one line, printable, holding a release number, with no word
// long enough to be a token or key and no "key=value". Only such a line is
// kept as the raw version of a command; any other output is discarded.
func Line(line string) bool {
	if Normalize(line) == "" || strings.ContainsAny(line, "=\n\r\t") {
		return false
	}
	for _, r := range line {
		if r < 0x20 || r == 0x7f || r > 0x7e {
			return false
		}
	}
	for _, w := range strings.Fields(line) {
		if len(strings.Trim(w, "()[],;")) > maxVersionWord {
			return false
		}
	}
	return true
}
