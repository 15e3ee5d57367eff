package report

import (
	"fmt"
	"strings"

	"github.com/luxeval/lux/record"
)

// caseLinks sets each case row's links from its strip: the first run that
// did not pass (else the first with a link), and on a served page the
// paired view of a passing and a failing repetition of a flaky case.
func caseLinks(p *SuitePage, ln links) {
	failed := map[string]bool{}
	for i := range p.Cases {
		c := &p.Cases[i]
		var pass, notPass *RunCell
		for j := range c.Runs {
			r := &c.Runs[j]
			switch {
			case r.Verdict == "pass" && pass == nil:
				pass = r
			case r.Verdict != "pass" && r.Verdict != "not-run" && notPass == nil:
				notPass = r
			}
		}
		switch {
		case notPass != nil && notPass.Href != "":
			c.Href = notPass.Href
		default:
			for _, r := range c.Runs {
				if r.Href != "" {
					c.Href = r.Href
					break
				}
			}
		}
		if pass != nil && notPass != nil && pass.dir != "" && notPass.dir != "" {
			c.pair = [2]string{pass.dir, notPass.dir}
			if ln != nil {
				c.PairHref = ln.pair(pass.dir, notPass.dir)
			}
		}
		ids := make([]string, len(c.Failed))
		for k, f := range c.Failed {
			ids[k] = f.ID
			failed[f.ID] = true
		}
		c.FailedIDs = strings.Join(ids, "\n")
	}
	p.FailedAssertions = sortedKeys(failed)
}

// embedPairs embeds in a static page the paired views of the flaky cases,
// up to o.MaxPairs, and links their rows to them.
func embedPairs(p *SuitePage, o Options) {
	flaky := 0
	for i := range p.Cases {
		c := &p.Cases[i]
		if c.pair[0] == "" {
			continue
		}
		flaky++
		if len(p.Pairs) == o.MaxPairs {
			continue
		}
		a, errA := record.ReadRun(c.pair[0], record.ReadOptions{Events: true})
		b, errB := record.ReadRun(c.pair[1], record.ReadOptions{Events: true})
		if errA != nil || errB != nil {
			continue
		}
		pp := pairPage(a, b, "", "", o, o.MaxEvents, nil)
		pp.Anchor = fmt.Sprintf("pair-%d", len(p.Pairs)+1)
		c.PairHref = "#" + pp.Anchor
		p.Pairs = append(p.Pairs, pp)
	}
	if flaky > len(p.Pairs) {
		p.PairsNote = fmt.Sprintf("This file embeds the paired views of %d of %d flaky cases; `lux view -serve` shows every one.", len(p.Pairs), flaky)
	}
}
