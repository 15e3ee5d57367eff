package stats

import (
	"cmp"
	"math"
	"slices"
)

// EBenjaminiHochberg returns which of K hypotheses the e-BH procedure
// rejects at false discovery rate alpha (Wang & Ramdas 2022, "False
// discovery rate control with e-values", JRSS-B 84(3)): with
// e₍₁₎ ≥ … ≥ e₍K₎ the e-values sorted in decreasing order,
//
//	k* = max{k : k·e₍k₎/K ≥ 1/alpha},  reject the k* largest
//
// (none when no k qualifies). The FDR is at most alpha·K₀/K ≤ alpha under
// any dependence between the e-values — several candidates against one
// baseline share the baseline's runs — as long as each null's e-value has
// expectation at most 1.
//
// For sequential tests pass each e-process's current value, frozen at its
// own stop (SignTestResult.EValue), never a running maximum
// (MaxEValue): a stopped nonnegative supermartingale at any stopping time
// is an e-value, its running maximum is not. The guarantee covers one
// application at one stopping time — the end of the campaign, or the
// first round at which the procedure rejects anything, acted on then;
// rejections gathered from repeated applications are not covered. A
// candidate whose own test stopped at 1/α is not thereby a discovery: with
// K candidates a lone one needs K/α. To stop each candidate on its own,
// use [EBonferroni] instead, with every test at level 1 − α/K.
// An e-value that is NaN or negative counts as 0 (never rejected).
func EBenjaminiHochberg(e []float64, alpha float64) []bool {
	if e == nil {
		return nil
	}
	k := float64(len(e))
	order := make([]int, len(e))
	for i := range order {
		order[i] = i
	}
	clean := func(i int) float64 {
		if !(e[i] >= 0) {
			return 0
		}
		return e[i]
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(clean(b), clean(a)) })
	reject := make([]bool, len(e))
	if !(alpha > 0 && alpha < 1) {
		return reject
	}
	kStar := 0
	for rank, i := range order {
		if float64(rank+1)*clean(i)/k >= 1/alpha {
			kStar = rank + 1
		}
	}
	for _, i := range order[:kStar] {
		reject[i] = true
	}
	return reject
}

// EBonferroni returns which of K hypotheses Bonferroni's rule on e-values
// rejects at family-wise error rate alpha: reject k when e_k ≥ K/alpha.
// Unlike [EBenjaminiHochberg] it also holds for running maxima of
// e-processes: by Ville's inequality each null process ever reaches K/alpha
// with probability at most alpha/K, so the chance that any does is at most
// alpha, however long each is watched. In a campaign this is a [SignTest]
// (or sequence) per candidate at level 1 − alpha/K, each stopping on its
// own. An e-value that is NaN or negative is never rejected.
func EBonferroni(e []float64, alpha float64) []bool {
	if e == nil {
		return nil
	}
	reject := make([]bool, len(e))
	if !(alpha > 0 && alpha < 1) {
		return reject
	}
	threshold := float64(len(e)) / alpha
	for i, v := range e {
		reject[i] = v >= threshold && !math.IsNaN(v)
	}
	return reject
}
