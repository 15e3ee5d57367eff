package compare

import (
	"slices"
	"strings"
)

// unitClusters sets the unit of each paired case, the independent unit its
// paired difference belongs to (a label of the unit, unique to it), and the
// unit's name for people.
//
// A case's difference depends on its runs on both sides, so two cases are
// dependent when they share a cluster label in A or in B (one label names
// the same cluster on both sides). The units are therefore the connected
// groups of the two labelings: a case labelled x in A and y in B joins x
// and y into one unit, named "x+y" (its labels, sorted, joined by "+").
// A case labelled on one side only belongs to that label's unit; a case
// labelled on neither side is a unit of its own (""). When A and B label
// every case alike, the units are the labels.
func unitClusters(paired []pairedCase) {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		p, ok := parent[x]
		if !ok || p == x {
			parent[x] = x
			return x
		}
		r := find(p)
		parent[x] = r
		return r
	}
	for _, pc := range paired {
		la, lb := pc.a.cluster, pc.b.cluster
		switch {
		case la != "" && lb != "":
			if ra, rb := find(la), find(lb); ra != rb {
				parent[max(ra, rb)] = min(ra, rb)
			}
		case la != "":
			find(la)
		case lb != "":
			find(lb)
		}
	}
	members := map[string][]string{}
	for l := range parent {
		r := find(l)
		members[r] = append(members[r], l)
	}
	names := make(map[string]string, len(members))
	for r, ls := range members {
		slices.Sort(ls)
		names[r] = strings.Join(ls, "+")
	}
	for i := range paired {
		l := paired[i].a.cluster
		if l == "" {
			l = paired[i].b.cluster
		}
		if l != "" {
			r := find(l)
			paired[i].unit, paired[i].cluster = r, names[r]
		}
	}
}
