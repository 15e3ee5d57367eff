package stats

import (
	"cmp"
	"slices"
)

// Align pairs two runs' per-case scores by case id for [Paired] and
// [McNemarExact]. It returns the ids present in both runs in increasing
// order with their before and after scores at matching positions, and,
// separately, the ids present in only one run: only cases scored in both
// runs carry paired evidence, and how many were left out should be
// reported next to the result.
func Align(before, after map[string]float64) (ids []string, b, a []float64, unmatched []string) {
	for id := range before {
		if _, ok := after[id]; ok {
			ids = append(ids, id)
		} else {
			unmatched = append(unmatched, id)
		}
	}
	for id := range after {
		if _, ok := before[id]; !ok {
			unmatched = append(unmatched, id)
		}
	}
	slices.SortFunc(ids, cmp.Compare[string])
	slices.SortFunc(unmatched, cmp.Compare[string])
	b = make([]float64, len(ids))
	a = make([]float64, len(ids))
	for i, id := range ids {
		b[i], a[i] = before[id], after[id]
	}
	return ids, b, a, unmatched
}

// Discordant counts the discordant pairs of two aligned 0/1 runs, the only
// pairs McNemar's test uses (McNemar 1947; see [McNemarExact]): b is the number of cases that passed before and failed
// after, c the number that failed before and passed after. A value counts
// as a pass when it is at least 0.5.
func Discordant(before, after []float64) (b, c int) {
	for i := range min(len(before), len(after)) {
		was, is := before[i] >= 0.5, after[i] >= 0.5
		switch {
		case was && !is:
			b++
		case !was && is:
			c++
		}
	}
	return b, c
}
