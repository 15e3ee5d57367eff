package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/stats"
)

// ExperimentRun is one run an experiment recorded (one unit of its
// ledger).
type ExperimentRun struct {
	Candidate, Profile, Split, CaseID string
	Repetition                        int
	Verdict                           record.Verdict
	// Dir is the run's directory; "" when the ledger does not say.
	Dir string
}

// ExperimentCase is one case on one profile and split: its runs under the
// baseline and under each candidate.
type ExperimentCase struct {
	Profile, Split, CaseID string
	Sides                  []ExperimentSide
}

// ExperimentSide is a case's runs under one candidate.
type ExperimentSide struct {
	Candidate string
	Runs      []RunCell
	// Verdict is pass when more than half the runs passed, else fail
	// (as compare decides a case's verdict).
	Verdict  string
	PassRate string
	// PairHref leads to the paired view of a baseline run and one of this
	// candidate's.
	PairHref string
	passed   int
	pair     [2]string // the run directories of the paired view
}

// ExperimentFlip is a case whose verdict under a candidate differs from
// the baseline's.
type ExperimentFlip struct {
	Candidate, Profile, Split, CaseID string
	Direction                         string // "pass → fail" or "fail → pass"
	PassRate                          string // "100.0% → 0.0%" (baseline → candidate)
	Test                              string
	P                                 float64
	PairHref                          string
}

// experimentCases groups the runs by profile, split and case, the
// baseline's side first, and lists the flips, the surest first (Fisher's
// exact test, one-sided, on the case's own runs).
func experimentCases(p *ExperimentPage) {
	type key struct{ profile, split, caseID string }
	at := map[key]int{}
	var candidates []string
	seen := map[string]bool{}
	if p.Baseline != "" {
		candidates, seen[p.Baseline] = append(candidates, p.Baseline), true
	}
	for _, r := range p.Runs {
		if !seen[r.Candidate] {
			candidates, seen[r.Candidate] = append(candidates, r.Candidate), true
		}
	}
	for _, r := range p.Runs {
		k := key{r.Profile, r.Split, r.CaseID}
		i, ok := at[k]
		if !ok {
			i = len(p.Cases)
			at[k] = i
			c := ExperimentCase{Profile: r.Profile, Split: r.Split, CaseID: r.CaseID}
			for _, name := range candidates {
				c.Sides = append(c.Sides, ExperimentSide{Candidate: name})
			}
			p.Cases = append(p.Cases, c)
		}
		side := &p.Cases[i].Sides[slices.Index(candidates, r.Candidate)]
		side.Runs = append(side.Runs, RunCell{Repetition: r.Repetition, Verdict: cssName(r.Verdict), dir: r.Dir,
			Title: fmt.Sprintf("%s, repetition %d: %s", r.Candidate, r.Repetition, r.Verdict)})
		if r.Verdict == record.VerdictPass {
			side.passed++
		}
	}
	for ci := range p.Cases {
		c := &p.Cases[ci]
		for si := range c.Sides {
			s := &c.Sides[si]
			slices.SortFunc(s.Runs, func(a, b RunCell) int { return cmp.Compare(a.Repetition, b.Repetition) })
			if len(s.Runs) == 0 {
				continue
			}
			s.Verdict = "fail"
			if 2*s.passed > len(s.Runs) {
				s.Verdict = "pass"
			}
			s.PassRate = pct(float64(s.passed) / float64(len(s.Runs)))
		}
		if p.Baseline == "" || len(c.Sides) == 0 || len(c.Sides[0].Runs) == 0 {
			continue
		}
		base := c.Sides[0]
		for si := 1; si < len(c.Sides); si++ {
			s := &c.Sides[si]
			if len(s.Runs) == 0 {
				continue
			}
			fell := s.passed*len(base.Runs) < base.passed*len(s.Runs)
			a, okA := pickCell(base.Runs, fell)
			b, okB := pickCell(s.Runs, !fell)
			if okA && okB {
				s.pair = [2]string{a.dir, b.dir}
			}
			if s.Verdict == base.Verdict {
				continue
			}
			f := ExperimentFlip{Candidate: s.Candidate, Profile: c.Profile, Split: c.Split, CaseID: c.CaseID,
				Direction: "pass → fail", PassRate: base.PassRate + " → " + s.PassRate}
			if s.Verdict == "pass" {
				f.Direction = "fail → pass"
				f.P = stats.FisherExactLess(s.passed, len(s.Runs), base.passed, len(base.Runs))
			} else {
				f.P = stats.FisherExactLess(base.passed, len(base.Runs), s.passed, len(s.Runs))
			}
			f.Test = fmt.Sprintf("%d → %d runs, Fisher one-sided p = %s", len(base.Runs), len(s.Runs), strconv.FormatFloat(f.P, 'g', 3, 64))
			p.FlipList = append(p.FlipList, f)
		}
	}
	slices.SortStableFunc(p.FlipList, func(x, y ExperimentFlip) int {
		return cmp.Or(cmp.Compare(x.P, y.P), cmp.Compare(x.Candidate, y.Candidate), cmp.Compare(x.CaseID, y.CaseID))
	})
}

// pickCell is the first run with a directory that passed (pass true) or
// did not, else the first with a directory.
func pickCell(runs []RunCell, pass bool) (RunCell, bool) {
	for _, r := range runs {
		if r.dir != "" && (r.Verdict == "pass") == pass {
			return r, true
		}
	}
	for _, r := range runs {
		if r.dir != "" {
			return r, true
		}
	}
	return RunCell{}, false
}

// linkRuns links every run cell to its page and every candidate's side to
// its paired view with the baseline, for a served page.
func (p *ExperimentPage) linkRuns(ln links) {
	for ci := range p.Cases {
		c := &p.Cases[ci]
		for si := range c.Sides {
			s := &c.Sides[si]
			for ri := range s.Runs {
				if d := s.Runs[ri].dir; d != "" {
					s.Runs[ri].Href = ln.run(d)
				}
			}
			if s.pair[0] != "" {
				s.PairHref = ln.pair(s.pair[0], s.pair[1])
			}
		}
	}
	p.linkFlips()
}

// linkFlips gives each flip its side's paired view.
func (p *ExperimentPage) linkFlips() {
	href := map[[4]string]string{}
	for _, c := range p.Cases {
		for _, s := range c.Sides {
			href[[4]string{s.Candidate, c.Profile, c.Split, c.CaseID}] = s.PairHref
		}
	}
	for i := range p.FlipList {
		f := &p.FlipList[i]
		f.PairHref = href[[4]string{f.Candidate, f.Profile, f.Split, f.CaseID}]
	}
}

// EmbedPairs embeds, for a static file, the paired views of the flipped
// cases (a baseline run against one of the candidate's), the surest first,
// up to opts.MaxPairs, and links the flips and sides to them.
func (p *ExperimentPage) EmbedPairs(opts Options) {
	o := opts.withDefaults()
	sides := map[[4]string]*ExperimentSide{}
	for ci := range p.Cases {
		c := &p.Cases[ci]
		for si := range c.Sides {
			sides[[4]string{c.Sides[si].Candidate, c.Profile, c.Split, c.CaseID}] = &c.Sides[si]
		}
	}
	for _, f := range p.FlipList {
		s := sides[[4]string{f.Candidate, f.Profile, f.Split, f.CaseID}]
		if s == nil || s.pair[0] == "" {
			continue
		}
		if len(p.Pairs) == o.MaxPairs {
			p.PairsNote = fmt.Sprintf("This file embeds the paired views of %d of %d flipped cases (the surest first); `lux view -serve` shows every one.", o.MaxPairs, len(p.FlipList))
			break
		}
		ra, errA := record.ReadRun(s.pair[0], record.ReadOptions{Events: true})
		rb, errB := record.ReadRun(s.pair[1], record.ReadOptions{Events: true})
		if errA != nil || errB != nil {
			continue
		}
		pp := pairPage(ra, rb, fmt.Sprintf("%s (repetition %d)", p.Baseline, ra.Metadata.Repetition),
			fmt.Sprintf("%s (repetition %d)", f.Candidate, rb.Metadata.Repetition), o, o.MaxEvents, nil)
		pp.Anchor = fmt.Sprintf("pair-%d", len(p.Pairs)+1)
		s.PairHref = "#" + pp.Anchor
		p.Pairs = append(p.Pairs, pp)
	}
	p.linkFlips()
}
