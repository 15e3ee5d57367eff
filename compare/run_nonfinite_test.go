package compare

import (
	"errors"
	"math"
	"testing"

	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run whose case score, assertion score or cost is NaN or infinite is a
// corrupt record: ErrCorrupt naming the side and the value, never a
// verdict (a NaN score compared unequal and read as "better") nor a
// comparison that cannot be written as JSON.
func TestRunNonFinite(t *testing.T) {
	tests := []struct {
		name string
		bad  func(r *record.Run)
		want string
	}{
		{"NaN case score", func(r *record.Run) { r.Grading.Score = ptr(math.NaN()) }, "case score is NaN"},
		{"+Inf assertion score", func(r *record.Run) { r.Grading.Assertions[1].Score = math.Inf(1) }, `assertion "tests" score is +Inf`},
		{"-Inf cost", func(r *record.Run) { r.Metadata.Usage.AgentCostUSD = ptr(math.Inf(-1)) }, "agent cost is -Inf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, side := range []string{"A", "B"} {
				a, b := run("runs/a", "hello"), run("runs/b", "hello")
				target := a
				if side == "B" {
					target = b
				}
				tt.bad(target)
				var c *RunComparison
				var err error
				require.NotPanics(t, func() { c, err = RunRecords(a, b, Options{}) })
				require.Error(t, err, side)
				assert.Nil(t, c)
				assert.True(t, errors.Is(err, ErrCorrupt), "%v", err)
				assert.Contains(t, err.Error(), "run "+side)
				assert.Contains(t, err.Error(), tt.want)
			}
		})
	}
}
