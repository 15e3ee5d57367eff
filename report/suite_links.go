package report

import (
	"strings"
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
		if ln != nil && pass != nil && notPass != nil && pass.dir != "" && notPass.dir != "" {
			c.PairHref = ln.pair(pass.dir, notPass.dir)
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
