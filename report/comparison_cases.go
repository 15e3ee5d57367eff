package report

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/record"
)

// ComparedCase is a paired case of a comparison with the way to its runs:
// each side's repetitions as a strip and its paired view.
type ComparedCase struct {
	compare.CaseDelta
	RunsA, RunsB []RunCell
	// Test is the per-case test and its outcome, with the gate rule the
	// case fails, if any.
	Test string
	// PairHref leads to the paired view of one run a side ("": none).
	PairHref string
	Tags     []string
}

// FlipRow is a case whose verdict changed between A and B.
type FlipRow struct {
	CaseID    string
	Direction string // "pass → fail" or "fail → pass"
	PassRate  string // "100.0% → 0.0%"
	Runs      string // "3 → 3"
	Test      string
	P         float64
	PairHref  string
	GateRule  string
}

// sideRun is one run of a case on one side of a comparison.
type sideRun struct {
	rep     int
	verdict record.Verdict
	dir     string
}

// sideRuns reads the manifest of the suite in dir into each case's runs;
// nil when there is none to read (a comparison built in memory).
func sideRuns(dir string) map[string][]sideRun {
	if dir == "" {
		return nil
	}
	s, err := record.ReadSuite(dir)
	if err != nil {
		return nil
	}
	out := map[string][]sideRun{}
	for i, it := range s.Manifest.Items {
		out[it.CaseID] = append(out[it.CaseID], sideRun{rep: it.Repetition, verdict: it.Verdict(), dir: s.RunDir(i)})
	}
	return out
}

// pickPair chooses the runs that explain a case's change: for a fall, a
// run of A that passed and one of B that did not; for a rise the
// reverse; else the first run of each side.
func pickPair(a, b []sideRun, cd compare.CaseDelta) (sideRun, sideRun, bool) {
	pick := func(runs []sideRun, pass bool) (sideRun, bool) {
		for _, r := range runs {
			if r.dir != "" && (r.verdict == record.VerdictPass) == pass {
				return r, true
			}
		}
		for _, r := range runs {
			if r.dir != "" {
				return r, true
			}
		}
		return sideRun{}, false
	}
	fell := cd.PassRate.B < cd.PassRate.A
	ra, okA := pick(a, fell || cd.PassRate.A == cd.PassRate.B)
	rb, okB := pick(b, !fell)
	return ra, rb, okA && okB
}

// comparedCases adds to the page each paired case's runs and paired
// view, and the flip list; a static page (ln nil) embeds the paired
// views of the changed cases, the surest first, up to o.MaxPairs.
func comparedCases(p *ComparisonPage, c *compare.SuiteComparison, o Options, ln links) {
	runsA, runsB := sideRuns(c.A.Dir), sideRuns(c.B.Dir)
	type chosen struct{ a, b sideRun }
	pairs := map[string]chosen{}
	for _, cd := range c.Cases {
		cc := ComparedCase{CaseDelta: cd, Test: caseTest(cd)}
		cc.RunsA, cc.RunsB = cells(runsA[cd.CaseID], ln), cells(runsB[cd.CaseID], ln)
		if ra, rb, ok := pickPair(runsA[cd.CaseID], runsB[cd.CaseID], cd); ok {
			pairs[cd.CaseID] = chosen{ra, rb}
			if ln != nil {
				cc.PairHref = ln.pair(ra.dir, rb.dir)
			}
		}
		p.Cases = append(p.Cases, cc)
		if cd.Passed.A != cd.Passed.B {
			f := FlipRow{CaseID: cd.CaseID, Direction: "pass → fail", P: cd.FallP, GateRule: cd.GateRule,
				PassRate: pct(cd.PassRate.A) + " → " + pct(cd.PassRate.B), Runs: fmt.Sprintf("%d → %d", cd.Runs.A, cd.Runs.B), Test: cc.Test}
			if cd.Passed.B {
				f.Direction, f.P = "fail → pass", cd.RiseP
			}
			f.PairHref = cc.PairHref
			p.FlipList = append(p.FlipList, f)
		}
	}
	slices.SortStableFunc(p.FlipList, func(x, y FlipRow) int {
		return cmp.Or(cmp.Compare(x.P, y.P), cmp.Compare(y.GateRule, x.GateRule), cmp.Compare(x.CaseID, y.CaseID))
	})
	if ln != nil {
		return
	}
	// A static page: embed the paired views, flips first, then the other
	// cases whose pass rate moved.
	var order []string
	for _, f := range p.FlipList {
		order = append(order, f.CaseID)
	}
	for _, cd := range c.Cases {
		if cd.Passed.A == cd.Passed.B && cd.Status != compare.CaseUnchanged {
			order = append(order, cd.CaseID)
		}
	}
	anchors := map[string]string{}
	for _, id := range order {
		ch, ok := pairs[id]
		if !ok {
			continue
		}
		if len(p.Pairs) == o.MaxPairs {
			p.PairsNote = fmt.Sprintf("This file embeds the paired views of %d of %d changed cases (the surest changes first); "+
				"`lux view -serve` shows every case's.", o.MaxPairs, len(order))
			break
		}
		ra, errA := record.ReadRun(ch.a.dir, record.ReadOptions{Events: true})
		rb, errB := record.ReadRun(ch.b.dir, record.ReadOptions{Events: true})
		if errA != nil || errB != nil {
			continue
		}
		pp := pairPage(ra, rb, fmt.Sprintf("A (repetition %d)", ch.a.rep), fmt.Sprintf("B (repetition %d)", ch.b.rep), o, o.MaxEvents, nil)
		pp.Anchor = fmt.Sprintf("pair-%d", len(p.Pairs)+1)
		anchors[id] = "#" + pp.Anchor
		p.Pairs = append(p.Pairs, pp)
	}
	for i := range p.Cases {
		p.Cases[i].PairHref = anchors[p.Cases[i].CaseID]
	}
	for i := range p.FlipList {
		p.FlipList[i].PairHref = anchors[p.FlipList[i].CaseID]
	}
}

// cells is a case's runs on one side as a strip, each linked to its page
// when served.
func cells(runs []sideRun, ln links) []RunCell {
	out := make([]RunCell, 0, len(runs))
	for _, r := range runs {
		c := RunCell{Repetition: r.rep, Verdict: cssName(r.verdict), Title: fmt.Sprintf("repetition %d: %s", r.rep, r.verdict)}
		if ln != nil {
			c.Href = ln.run(r.dir)
		}
		out = append(out, c)
	}
	return out
}
