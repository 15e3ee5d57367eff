package stats

import (
	"cmp"
	"math"
	"slices"
)

// HolmBonferroni returns Holm's step-down adjusted p-values, which control
// the family-wise error rate (Holm 1979, "A Simple Sequentially Rejective
// Multiple Test Procedure"). With p₍₁₎ ≤ … ≤ p₍ₘ₎ the sorted inputs:
//
//	p̃₍ᵢ₎ = min(1, max_{j≤i} (m−j+1)·p₍ⱼ₎)
//
// Reject hypothesis i at level α when its adjusted p-value is ≤ α. The
// result keeps the input order; ties are ranked by position. An input that
// is NaN or outside [0, 1] counts as a member of the family with p = 1 and
// its adjusted value is NaN.
func HolmBonferroni(p []float64) []float64 {
	if p == nil {
		return nil
	}
	m := float64(len(p))
	order, sorted := rankP(p)
	adj := make([]float64, len(p))
	running := 0.0
	for rank, i := range order {
		running = math.Max(running, math.Min(1, (m-float64(rank))*sorted[rank]))
		adj[i] = running
	}
	markInvalid(p, adj)
	return adj
}

// BenjaminiHochberg returns the Benjamini–Hochberg step-up adjusted
// p-values (q-values), which control the false discovery rate for
// independent or positively dependent tests (Benjamini & Hochberg 1995,
// "Controlling the False Discovery Rate"). With p₍₁₎ ≤ … ≤ p₍ₘ₎ sorted:
//
//	p̃₍ᵢ₎ = min(1, min_{j≥i} (m/j)·p₍ⱼ₎)
//
// The result keeps the input order; ties are ranked by position. An input
// that is NaN or outside [0, 1] counts as a member of the family with p = 1
// and its adjusted value is NaN.
func BenjaminiHochberg(p []float64) []float64 {
	if p == nil {
		return nil
	}
	m := float64(len(p))
	order, sorted := rankP(p)
	adj := make([]float64, len(p))
	running := 1.0
	for rank := len(order) - 1; rank >= 0; rank-- {
		running = math.Min(running, m/float64(rank+1)*sorted[rank])
		adj[order[rank]] = running
	}
	markInvalid(p, adj)
	return adj
}

// rankP returns the input indices ordered by p-value (invalid values as 1,
// ties by position) and the p-values in that order.
func rankP(p []float64) (order []int, sorted []float64) {
	clean := make([]float64, len(p))
	order = make([]int, len(p))
	for i, v := range p {
		clean[i] = v
		if !validP(v) {
			clean[i] = 1
		}
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(clean[a], clean[b]) })
	sorted = make([]float64, len(p))
	for rank, i := range order {
		sorted[rank] = clean[i]
	}
	return order, sorted
}

func markInvalid(p, adj []float64) {
	for i, v := range p {
		if !validP(v) {
			adj[i] = math.NaN()
		}
	}
}

func validP(v float64) bool { return v >= 0 && v <= 1 }
