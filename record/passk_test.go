package record

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
)

func item(id string, v Verdict) SuiteItem {
	return SuiteItem{CaseID: id, Status: ItemCompleted, ExitReason: lux.ExitDone, RunVerdict: v}
}

func TestSuitePassK(t *testing.T) {
	assert.Nil(t, SuitePassK([]SuiteItem{item("a", VerdictPass)}, 1), "one repetition: no pass@k")

	items := []SuiteItem{
		item("a", VerdictPass), item("a", VerdictPass), item("a", VerdictPass), // 3/3
		item("b", VerdictPass), item("b", VerdictFail), item("b", VerdictFail), // 1/3
		item("c", VerdictFail), item("c", VerdictFail), item("c", VerdictFail), // 0/3
		item("d", VerdictPass), item("d", VerdictError), item("d", VerdictPass), // 2 graded: left out
	}
	p := SuitePassK(items, 3)
	require.NotNil(t, p)
	assert.Equal(t, 3, p.K)
	assert.Equal(t, 3, p.Cases)
	assert.Equal(t, []string{"d"}, p.LeftOut)
	// a: pass@3 1, pass^3 1; b: pass@3 1, pass^3 0; c: 0, 0.
	assert.InDelta(t, 2.0/3, p.PassAtK, 1e-12)
	assert.InDelta(t, 1.0/3, p.PassHatK, 1e-12)
	assert.Contains(t, p.Method, "unbiased")

	none := SuitePassK([]SuiteItem{item("d", VerdictPass), item("d", VerdictError)}, 2)
	require.NotNil(t, none)
	assert.Equal(t, 0, none.Cases)
	assert.Equal(t, []string{"d"}, none.LeftOut)
	assert.Contains(t, none.Text(), "no case has 2 graded runs")
	assert.Equal(t, "pass@3 66.7%, pass^3 33.3% (mean over 3 cases of the unbiased per-case estimators on graded runs; 1 case with fewer than 3 graded runs left out)", p.Text())
}
