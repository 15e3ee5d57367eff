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
// grading.json (nil when absent).
func RunVerdict(m *lux.RunMetadata, g *lux.GradingReport) Verdict {
	switch {
	case m == nil:
		return VerdictError
	case m.ExitReason == lux.ExitCancelled:
		return VerdictCancelled
	case m.ExitReason != lux.ExitDone && m.OperationalFailure != nil:
		return VerdictError // the harness ended the run
	case m.ExitReason != lux.ExitDone:
		return VerdictFail // the agent ended it
	case g == nil:
		return VerdictError
	case g.Passed == nil && g.Incomplete != nil:
		return VerdictError // an assertion could not grade
	case g.Passed == nil:
		return VerdictUngraded
	case *g.Passed:
		return VerdictPass
	}
	return VerdictFail
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
	case it.ExitReason == lux.ExitCancelled:
		return VerdictCancelled
	case it.ExitReason != lux.ExitDone:
		return VerdictFail
	case it.Passed == nil:
		return VerdictUngraded
	case *it.Passed:
		return VerdictPass
	}
	return VerdictFail
}
