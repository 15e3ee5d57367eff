package record

import (
	"fmt"
	"slices"

	"github.com/luxeval/lux/stats"
)

// PassK is pass@k and pass^k of a suite whose cases ran k times each:
// pass@k is the chance that at least one of k runs of a case passes,
// pass^k that all k do, each estimated per case without bias from its
// graded runs (n runs with a verdict pass or fail, c of them passed) and
// averaged over the cases with at least k graded runs.
type PassK struct {
	K int `json:"k"`
	// PassAtK and PassHatK are the means over Cases; meaningless (0) when
	// Cases is 0.
	PassAtK  float64 `json:"passAtK"`
	PassHatK float64 `json:"passHatK"`
	// Cases is how many cases the means are over.
	Cases int `json:"cases"`
	// LeftOut are the cases with fewer than K graded runs (runs that
	// errored, were cancelled or could not be graded do not count).
	LeftOut []string `json:"leftOut,omitempty"`
	// Method names the estimators.
	Method string `json:"method"`
}

// PassKMethod is PassK.Method.
const PassKMethod = "mean over cases of the unbiased estimators 1 − C(n−c,k)/C(n,k) (pass@k, Chen et al. 2021) and C(c,k)/C(n,k) (pass^k, Yao et al. 2024) on each case's n graded runs, c passed"

// SuitePassK computes PassK over the items of a suite for k, its
// repetitions, with stats.PassAtK and stats.PassHatK; nil when k < 2
// (pass@1 is the pass rate).
func SuitePassK(items []SuiteItem, k int) *PassK {
	if k < 2 {
		return nil
	}
	type count struct{ n, c int }
	counts := map[string]*count{}
	var order []string
	for _, it := range items {
		cn := counts[it.CaseID]
		if cn == nil {
			cn = &count{}
			counts[it.CaseID] = cn
			order = append(order, it.CaseID)
		}
		switch it.Verdict() {
		case VerdictPass:
			cn.n++
			cn.c++
		case VerdictFail:
			cn.n++
		}
	}
	p := &PassK{K: k, Method: PassKMethod}
	for _, id := range order {
		cn := counts[id]
		if cn.n < k {
			p.LeftOut = append(p.LeftOut, id)
			continue
		}
		// 1 ≤ k ≤ n and 0 ≤ c ≤ n: the estimators are defined.
		at, _ := stats.PassAtK(cn.n, cn.c, k)
		hat, _ := stats.PassHatK(cn.n, cn.c, k)
		p.PassAtK += at
		p.PassHatK += hat
		p.Cases++
	}
	if p.Cases > 0 {
		p.PassAtK /= float64(p.Cases)
		p.PassHatK /= float64(p.Cases)
	}
	slices.Sort(p.LeftOut)
	return p
}

// Text is PassK in one line, for people.
func (p *PassK) Text() string {
	if p.Cases == 0 {
		return fmt.Sprintf("pass@%d, pass^%d: no case has %d graded runs", p.K, p.K, p.K)
	}
	s := fmt.Sprintf("pass@%d %.1f%%, pass^%d %.1f%% (mean over %d %s of the unbiased per-case estimators on graded runs",
		p.K, 100*p.PassAtK, p.K, 100*p.PassHatK, p.Cases, pluralWord(p.Cases, "case"))
	if n := len(p.LeftOut); n > 0 {
		s += fmt.Sprintf("; %d %s with fewer than %d graded runs left out", n, pluralWord(n, "case"), p.K)
	}
	return s + ")"
}

func pluralWord(n int, w string) string {
	if n == 1 {
		return w
	}
	return w + "s"
}
