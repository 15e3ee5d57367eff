package record

import "github.com/luxeval/lux"

// Verdict is what one run of a suite came to. Only pass and fail are
// verdicts on the agent; error, cancelled and not run are runs without one,
// counted apart and left out of pass rates.
type Verdict string

// The verdicts.
const (
	VerdictPass Verdict = "pass" // ended done and passed its assertions
	// VerdictFail: the agent failed: its work failed an assertion, or it
	// ended in error, went idle past its timeout, asked too much or
	// spent past its budget.
	VerdictFail Verdict = "fail"
	// VerdictError: the harness could not get a verdict: the agent's command
	// is missing, the driver could not start, the answerer failed, an
	// assertion could not grade, the record could not be written.
	VerdictError     Verdict = "error"
	VerdictCancelled Verdict = "cancelled" // stopped by a cancellation before it ended
	VerdictNotRun    Verdict = "not run"   // never started: the suite was stopped first
	VerdictUngraded  Verdict = "ungraded"  // ended done with nothing to grade it
)

// Graded reports whether v is a verdict on the agent (pass or fail).
func (v Verdict) Graded() bool { return v == VerdictPass || v == VerdictFail }

// RunVerdict is the verdict of a finished run from its run.json and
// grading.json (nil when absent). It is the one rule for a run's verdict:
// every surface (the CLI's table, JSON and JUnit, the HTML report,
// comparisons) shows what it returns.
func RunVerdict(m *Metadata, g *Grading) Verdict {
	if m == nil {
		return VerdictError
	}
	var passed *bool
	if g != nil {
		passed = g.Passed
	}
	return verdict(m.ExitReason, m.OperationalFailure != nil, g != nil, passed, g != nil && g.Incomplete != nil)
}

// verdict is RunVerdict on the parts of a run's records it reads: how it
// ended, whether the harness ended it, whether it has a grading, the
// grading's case verdict and whether the grading is incomplete.
func verdict(exit lux.ExitReason, harnessFailed, graded bool, passed *bool, incomplete bool) Verdict {
	switch {
	case exit == lux.ExitCancelled:
		return VerdictCancelled
	case exit != lux.ExitDone && harnessFailed:
		return VerdictError // the harness ended the run
	case exit != lux.ExitDone:
		return VerdictFail // the agent ended it
	case !graded:
		return VerdictError
	case passed == nil && incomplete:
		return VerdictError // an assertion could not grade
	case passed == nil:
		return VerdictUngraded
	case *passed:
		return VerdictPass
	}
	return VerdictFail
}

// legacyVerdict is the verdict of a run recorded before verdicts were:
// RunVerdict on what a manifest item or a sample kept (its exit reason
// and case verdict), which cannot tell a harness error from an agent's.
func legacyVerdict(exit lux.ExitReason, passed *bool) Verdict {
	return verdict(exit, false, true, passed, false)
}

// Verdict returns the item's verdict: the one recorded, or for a manifest
// written before verdicts were recorded, the one its exit reason and
// casePassed imply.
func (it SuiteItem) Verdict() Verdict {
	switch {
	case it.Status != ItemCompleted:
		return VerdictNotRun
	case it.RunVerdict != "":
		return it.RunVerdict
	}
	return legacyVerdict(it.ExitReason, it.Passed)
}

// Verdict returns the sample's verdict: the one recorded, or for a
// summary written before verdicts were recorded, the one its exit reason
// and casePassed imply.
func (s Sample) Verdict() Verdict {
	if s.RunVerdict != "" {
		return s.RunVerdict
	}
	return legacyVerdict(s.ExitReason, s.Passed)
}
