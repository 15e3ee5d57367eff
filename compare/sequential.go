package compare

import "github.com/luxeval/lux/record"

// SamplePassed reports whether a run passed: it ended done and its grading
// passed, the verdict the pass rate counts (an ungraded run did not pass).
func SamplePassed(s record.Sample) bool {
	return runVerdict(s.ExitReason, s.Passed) == VerdictPass
}
