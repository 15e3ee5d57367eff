package compare

import "errors"

// Errors of this package, wrapped with the path and the problem; test
// them with errors.Is. A comparison of two runs or suites that do not
// measure the same thing is not an error: its verdict is NotComparable.
var (
	// ErrNotRecord reports a directory that is neither a run directory
	// (no run.json) nor a suite directory (no suite.json).
	ErrNotRecord = errors.New("compare: not a run or suite directory")
	// ErrKindMismatch reports a run given where a suite is expected, or
	// the other way round.
	ErrKindMismatch = errors.New("compare: a run and a suite cannot be compared")
	// ErrEmpty reports a side with nothing to compare (an empty list of
	// run directories).
	ErrEmpty = errors.New("compare: nothing to compare")
	// ErrCorrupt reports a run whose numbers cannot be compared: a score,
	// cost or metric that is NaN or infinite (JSON cannot hold one, so it
	// comes from a record built in memory), or values so large that a
	// case's sum overflows. The error names the side, the run or case, and
	// the value.
	ErrCorrupt = errors.New("compare: corrupt record")
)
