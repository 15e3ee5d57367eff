package assertion_test

import "testing"

// The largest max must not overflow the number of matches counted.
func TestFileRegexCountHugeMax(t *testing.T) {
	runEvaluations(t, []evaluated{
		{name: "max is the largest int", typ: "file-regex-count", cfg: `{"path":"log.txt","pattern":"^error","flags":"m","max":9223372036854775807}`, pass: true,
			comment: `3 matches of /^error/ in "log.txt": 3 <= 9223372036854775807`, detail: map[string]any{"count": 3, "exact": true}},
		{name: "min and the largest max", typ: "file-regex-count", cfg: `{"path":"log.txt","pattern":"^error","flags":"m","min":4,"max":9223372036854775807}`,
			comment: `3 matches of /^error/ in "log.txt": 3 < min 4`, detail: map[string]any{"count": 3, "exact": true}},
	})
}
