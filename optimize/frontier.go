package optimize

import (
	"cmp"
	"slices"
)

// cand is a candidate of the search.
type cand struct {
	ID, Parent, Rationale string
	Call                  int
	Files                 map[string]string // every mutable file
	evaluated             bool
	cases                 map[string]float64
	mean                  float64
	ledger                string
}

// dominates reports whether a is at least b on every train case and
// better on one.
func dominates(a, b *cand) bool {
	better := false
	for k, bv := range b.cases {
		av := a.cases[k]
		if av < bv {
			return false
		}
		if av > bv {
			better = true
		}
	}
	return better
}

// frontier is the per-case Pareto frontier of the evaluated candidates:
// those no other dominates (so each is best, or tied best, on some train
// case, or trades one case for another). It is ordered by coverage (the
// cases on which a member ties the best), most first, then by id, so
// that the parent of iteration i is frontier[i % len].
func frontier(cs []*cand) []*cand {
	var ev []*cand
	for _, c := range cs {
		if c.evaluated {
			ev = append(ev, c)
		}
	}
	var out []*cand
	for _, c := range ev {
		if !slices.ContainsFunc(ev, func(o *cand) bool { return o != c && dominates(o, c) }) {
			out = append(out, c)
		}
	}
	best := map[string]float64{}
	for _, c := range out {
		for k, v := range c.cases {
			best[k] = max(best[k], v)
		}
	}
	coverage := func(c *cand) int {
		n := 0
		for k, v := range c.cases {
			if v == best[k] {
				n++
			}
		}
		return n
	}
	slices.SortStableFunc(out, func(a, b *cand) int {
		return cmp.Or(cmp.Compare(coverage(b), coverage(a)), cmp.Compare(idOrder(a.ID), idOrder(b.ID)))
	})
	return out
}

// improves reports whether c is better on some train case than every
// candidate before it: a step the search counts as progress.
func improves(c *cand, before []*cand) bool {
	for k, v := range c.cases {
		best, seen := 0.0, false
		for _, b := range before {
			if b.evaluated {
				if bv, ok := b.cases[k]; ok && (!seen || bv > best) {
					best, seen = bv, true
				}
			}
		}
		if !seen || v > best {
			return true
		}
	}
	return false
}

// idOrder orders candidate ids: the baseline, then c1, c2, ... by number.
func idOrder(id string) int {
	if id == "baseline" {
		return -1
	}
	n := 0
	for _, r := range id[min(1, len(id)):] {
		if r < '0' || r > '9' {
			return 1 << 30
		}
		n = n*10 + int(r-'0')
	}
	return n
}
