// Package compare compares run records: one run with another, and one
// suite (or set of runs) with another, to answer after a change to a
// skill, a prompt or an agent whether B is better than A, worse, not
// detectably different, or not comparable at all, and why.
package compare
