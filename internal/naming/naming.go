// Package naming words the names in lux's messages: the field path of a
// problem ("driver.config.idleTimeout") and the "did you mean" guess of a
// misspelt name.
package naming

import "strings"

// Join joins field path segments: Join("driver.config", "idleTimeout")
// is "driver.config.idleTimeout"; an index segment "[2]" attaches directly.
func Join(prefix, path string) string {
	switch {
	case prefix == "":
		return path
	case path == "":
		return prefix
	case strings.HasPrefix(path, "["):
		return prefix + path
	default:
		return prefix + "." + path
	}
}

// Closest returns the one name of known that name most likely meant, or
// "": the same name in another case, else the one name a typo away (one
// or two edits), else the one name that begins with name and a '-'
// ("claude" for "claude-code"). Two names as close are no guess. It is the
// guess of "did you mean" in lux's messages.
func Closest(name string, known []string) string {
	lower := strings.ToLower(name)
	// unique returns the one name match accepts, and whether any did.
	unique := func(match func(k string) bool) (string, bool) {
		var found []string
		for _, k := range known {
			if match(k) {
				found = append(found, k)
			}
		}
		if len(found) == 1 {
			return found[0], true
		}
		return "", len(found) > 0
	}
	rules := []func(k string) bool{
		func(k string) bool { return strings.ToLower(k) == lower },
		func(k string) bool { return 1 < len(k) && EditDistance(strings.ToLower(k), lower) == 1 },
		func(k string) bool { return 2 < len(k) && EditDistance(strings.ToLower(k), lower) == 2 },
		func(k string) bool { return lower != "" && strings.HasPrefix(strings.ToLower(k), lower+"-") },
	}
	for _, match := range rules {
		if g, any := unique(match); any {
			return g // "" when two names are as close
		}
	}
	return ""
}

// EditDistance is the edit distance between a and b in bytes, counting an
// insertion, a deletion, a substitution or a swap of two neighbours as one
// edit (optimal string alignment).
func EditDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
