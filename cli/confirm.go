package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// confirmFlags are lux run's flags for confirming disagreements with a
// baseline suite sequentially.
type confirmFlags struct {
	baseline string
	confirm  bool
	max      int
	alpha    float64
}

// DefaultConfirmMax is the default cap on extra runs per confirmed case.
const DefaultConfirmMax = 10

func (f *confirmFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.baseline, "baseline", "", "with -confirm: the suite to confirm against (its directory, latest or label:NAME under -runs-root)")
	fs.BoolVar(&f.confirm, "confirm", false, "run each case once; where its verdict disagrees with -baseline, add runs one at a time until a sequential test decides it regressed (improved), held, or -confirm-max is reached")
	fs.IntVar(&f.max, "confirm-max", DefaultConfirmMax, "with -confirm: the most extra runs of one case")
	fs.Float64Var(&f.alpha, "confirm-alpha", 0.05, "with -confirm: the family-wise error rate of the regressed and improved decisions")
}

// check validates the flags.
func (f *confirmFlags) check(rf *runFlags) error {
	switch {
	case !f.confirm && f.baseline == "":
		return nil
	case !f.confirm:
		return fmt.Errorf("-baseline: only used with -confirm")
	case f.baseline == "":
		return fmt.Errorf("-confirm: give the suite to confirm against as -baseline SUITE")
	case rf.resume != "":
		return fmt.Errorf("-confirm: not with -resume")
	case rf.repeat != 1:
		return fmt.Errorf("-confirm: each case runs once, then as often as its confirmation needs; leave out -repeat")
	case f.max < 1:
		return fmt.Errorf("-confirm-max: must be at least 1, got %d", f.max)
	case !(f.alpha > 0 && f.alpha < 1):
		return fmt.Errorf("-confirm-alpha: must be between 0 and 1, got %v", f.alpha)
	}
	return nil
}

// ConfirmReport is what `lux run -confirm` prints (-json: schema
// "lux.confirm/v1"): the new suite (one run of every case), and for every
// case how its verdict compares with the baseline's and what its
// confirmation decided.
type ConfirmReport struct {
	Schema   string      `json:"schema"` // "lux.confirm/v1"
	Baseline string      `json:"baseline"`
	Suite    SuiteReport `json:"suite"`
	// Method names the test; Alpha is its family-wise error rate; MaxRuns
	// the cap on extra runs per case.
	Method  string        `json:"method"`
	Alpha   float64       `json:"alpha"`
	MaxRuns int           `json:"maxRuns"`
	Cases   []ConfirmCase `json:"cases"`
	// Disagreements is M, the cases confirmed; Decided those a test
	// decided before the cap; ExtraRuns K, the runs after the first.
	Disagreements int `json:"disagreements"`
	Decided       int `json:"decided"`
	ExtraRuns     int `json:"extraRuns"`
	// FixedRepetitions R = 1 + MaxRuns and FixedRuns (R × cases) are what
	// running every case R times would have cost.
	FixedRepetitions int `json:"fixedRepetitions"`
	FixedRuns        int `json:"fixedRuns"`
	// ConfirmSuites are the suites that hold the extra runs, one per
	// round (under <runs root>/.confirm/<suite id>).
	ConfirmSuites []string `json:"confirmSuites,omitempty"`
	// GateFailed: a case regressed, was undecided on a regression, could
	// not be graded, or is new and failed (exit status 1); GateFailures
	// says which and why.
	GateFailed   bool     `json:"gateFailed"`
	GateFailures []string `json:"gateFailures,omitempty"`
}

// ConfirmCase is one case of a ConfirmReport.
type ConfirmCase struct {
	CaseID string `json:"caseId"`
	// BaselinePassed of BaselineGraded are the baseline's graded runs.
	BaselinePassed int `json:"baselinePassed"`
	BaselineGraded int `json:"baselineGraded"`
	// Verdict is the new suite's run of the case.
	Verdict record.Verdict `json:"verdict"`
	// Outcome: "agrees", "new" (no graded baseline run), "ungraded" (the
	// new run has no verdict), or the confirmation's decision (regressed,
	// improved, held, undecided).
	Outcome string `json:"outcome"`
	// Test is the confirmation's state, for a disagreement.
	Test *compare.ConfirmTest `json:"test,omitempty"`
}

// confirmMethod names the test in the report.
const confirmMethod = "one-sided Clopper-Pearson bound on the baseline + uniform-mixture e-process on the extra runs, Bonferroni over the disagreements"

// baselineCounts is a case's graded runs in a suite.
type baselineCounts struct{ passed, graded int }

func suiteCounts(m *record.SuiteManifest) map[string]*baselineCounts {
	out := map[string]*baselineCounts{}
	for _, it := range m.Items {
		c := out[it.CaseID]
		if c == nil {
			c = &baselineCounts{}
			out[it.CaseID] = c
		}
		switch it.Verdict() {
		case record.VerdictPass:
			c.passed++
			c.graded++
		case record.VerdictFail:
			c.graded++
		}
	}
	return out
}

// runConfirm runs the suite once, then confirms each case that disagrees
// with the baseline, round by round, each round one suite of one run of
// every undecided case.
func runConfirm(ctx context.Context, e *env, f *runFlags, opts orchestrator.Options, o *orchestrator.Orchestrator, cases []*lux.Case) int {
	dir, err := record.ResolveSuite(opts.RunsRoot, f.confirm.baseline)
	if err != nil {
		e.errorf("-baseline: %v", err)
		return ExitUsage
	}
	base, err := record.ReadSuite(dir)
	if err != nil {
		e.errorf("-baseline: %v", err)
		return ExitUsage
	}
	res, err := o.RunSuite(ctx, cases)
	if res == nil {
		e.errorf("%v", err)
		return ExitFailed
	}
	rep := ConfirmReport{Schema: "lux.confirm/v1", Baseline: displayPath(base.Dir), Suite: newSuiteReport(res),
		Method: confirmMethod, Alpha: f.confirm.alpha, MaxRuns: f.confirm.max, FixedRepetitions: 1 + f.confirm.max}
	if err == nil {
		err = rep.confirm(ctx, e, f, opts, res, suiteCounts(base.Manifest), cases)
	}
	rep.finish()
	if *f.json {
		e.writeJSON(rep)
	} else {
		rep.Suite.writeText(e.stdout)
		rep.writeText(e.stdout)
	}
	if f.junit != "" {
		if jerr := writeJUnit(f.junit, rep.Suite); jerr != nil {
			e.errorf("-junit: %v", jerr)
			return ExitUsage
		}
	}
	if err != nil {
		e.errorf("%v", err)
		return ExitFailed
	}
	if rep.GateFailed {
		return ExitFailed
	}
	return ExitOK
}

// confirm classifies the cases of the new suite res and runs the rounds.
func (rep *ConfirmReport) confirm(ctx context.Context, e *env, f *runFlags, opts orchestrator.Options, res *record.Suite,
	base map[string]*baselineCounts, cases []*lux.Case) error {
	var disagree []int
	for _, it := range res.Manifest.Items {
		cc := ConfirmCase{CaseID: it.CaseID, Verdict: it.Verdict()}
		b := base[it.CaseID]
		if b != nil {
			cc.BaselinePassed, cc.BaselineGraded = b.passed, b.graded
		}
		switch {
		case cc.Verdict != record.VerdictPass && cc.Verdict != record.VerdictFail:
			cc.Outcome = "ungraded"
		case b == nil || b.graded == 0:
			cc.Outcome = "new"
		case (cc.Verdict == record.VerdictPass) == (2*b.passed >= b.graded):
			cc.Outcome = "agrees"
		default:
			disagree = append(disagree, len(rep.Cases))
		}
		rep.Cases = append(rep.Cases, cc)
	}
	rep.Disagreements = len(disagree)
	for _, i := range disagree {
		cc := &rep.Cases[i]
		dir, hits := compare.Regression, cc.BaselineGraded-cc.BaselinePassed
		if cc.Verdict == record.VerdictPass {
			dir, hits = compare.Improvement, cc.BaselinePassed
		}
		t, err := compare.NewConfirmTest(dir, hits, cc.BaselineGraded, len(disagree), rep.Alpha, rep.MaxRuns)
		if err != nil {
			return err
		}
		cc.Test = t
	}
	byID := map[string]*lux.Case{}
	for _, c := range cases {
		byID[c.CanonicalID()] = c
	}
	opts.RunsRoot = filepath.Join(opts.RunsRoot, ".confirm", res.Manifest.SuiteID)
	opts.Label, opts.Repetitions = "", 1
	o := orchestrator.New(e.reg, opts)
	for {
		var round []*lux.Case
		open := map[string]*ConfirmCase{}
		for _, i := range disagree {
			if cc := &rep.Cases[i]; cc.Test.Decision() == compare.ConfirmContinue {
				round = append(round, byID[cc.CaseID])
				open[cc.CaseID] = cc
			}
		}
		if len(round) == 0 {
			return nil
		}
		r, err := o.RunSuite(ctx, round)
		if r == nil {
			return err
		}
		rep.ConfirmSuites = append(rep.ConfirmSuites, displayPath(r.Dir))
		for _, it := range r.Manifest.Items {
			cc := open[it.CaseID]
			if cc == nil {
				continue
			}
			rep.ExtraRuns++
			switch it.Verdict() {
			case record.VerdictPass, record.VerdictFail:
				cc.Test.Observe(it.Verdict() == record.VerdictPass)
			default:
				cc.Test.Spent()
			}
		}
		if err != nil {
			return err
		}
	}
}

// finish fills the outcomes of the confirmed cases, the totals and the gate.
func (rep *ConfirmReport) finish() {
	rep.FixedRuns = rep.FixedRepetitions * len(rep.Cases)
	for i := range rep.Cases {
		cc := &rep.Cases[i]
		if cc.Test != nil {
			d := cc.Test.Decision()
			if d == compare.ConfirmContinue {
				d = compare.ConfirmUndecided // interrupted
			}
			cc.Outcome = string(d)
			if d != compare.ConfirmUndecided {
				rep.Decided++
			}
			switch {
			case d == compare.ConfirmRegressed:
				rep.gateFails(cc.CaseID + ": regressed")
			case d == compare.ConfirmUndecided && cc.Test.Direction == compare.Regression:
				rep.gateFails(cc.CaseID + ": regression undecided at the cap")
			}
		}
		switch {
		case cc.Outcome == "ungraded":
			rep.gateFails(cc.CaseID + ": no verdict (" + string(cc.Verdict) + ")")
		case cc.Outcome == "new" && cc.Verdict != record.VerdictPass:
			rep.gateFails(cc.CaseID + ": failed, with no graded baseline run")
		}
	}
}

func (rep *ConfirmReport) gateFails(why string) {
	rep.GateFailed = true
	rep.GateFailures = append(rep.GateFailures, why)
}

// writeText prints the confirmation table and its summary line.
func (rep *ConfirmReport) writeText(w io.Writer) {
	fmt.Fprintf(w, "\nconfirmation against %s (α = %g, at most %d extra runs per case):\n", rep.Baseline, rep.Alpha, rep.MaxRuns)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tBASELINE\tNEW\tOUTCOME\tEXTRA RUNS\tE-VALUE\tHELD E\tBOUND")
	for _, cc := range rep.Cases {
		row := []string{cc.CaseID, fmt.Sprintf("%d/%d passed", cc.BaselinePassed, cc.BaselineGraded), string(cc.Verdict), cc.Outcome, "0", "", "", ""}
		if t := cc.Test; t != nil {
			pass := t.Runs - t.Hits
			if t.Direction == compare.Improvement {
				pass = t.Hits
			}
			row[4] = fmt.Sprintf("%d (%d passed)", t.Runs+t.Ungraded, pass)
			row[5], row[6] = fmt.Sprintf("%.3g", t.EChange), fmt.Sprintf("%.3g", t.EHeld)
			row[7] = boundText(t)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	_ = tw.Flush()
	runs := len(rep.Cases) + rep.ExtraRuns
	fmt.Fprintf(w, "confirmed %d of %d disagreements using %d extra runs, %d in all (a fixed design at %d repetitions would have used %d); threshold %s\n",
		rep.Decided, rep.Disagreements, rep.ExtraRuns, runs, rep.FixedRepetitions, rep.FixedRuns, thresholdText(rep))
	if rep.GateFailed {
		fmt.Fprintf(w, "gate: FAIL: %s\n", strings.Join(rep.GateFailures, "; "))
	} else {
		fmt.Fprintln(w, "gate: pass")
	}
}

// boundText states the baseline's confidence bound as a pass rate.
func boundText(t *compare.ConfirmTest) string {
	if t.Direction == compare.Improvement {
		return fmt.Sprintf("baseline pass ≤ %.2f", t.Bound)
	}
	return fmt.Sprintf("baseline pass ≥ %.2f", 1-t.Bound)
}

func thresholdText(rep *ConfirmReport) string {
	for _, cc := range rep.Cases {
		if cc.Test != nil {
			return fmt.Sprintf("e ≥ %g", cc.Test.Threshold)
		}
	}
	return "none needed"
}
