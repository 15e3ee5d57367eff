package experiment

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// quietUnits are units of candidate on 16 cases in clusters of 2, passing
// where pass is 1, every case using 100 tokens; toolCalls is 10 + shift
// on the first case of each cluster and 10 − shift on the second.
func quietUnits(candidate string, pass []int, shift float64) []*Unit {
	var out []*Unit
	for i, p := range pass {
		passed := p == 1
		id := fmt.Sprintf("case-%d", i)
		cluster := string(rune('A' + i/2))
		calls := 10 + shift
		if i%2 == 1 {
			calls = 10 - shift
		}
		out = append(out, &Unit{Candidate: candidate, Profile: "default", Split: SplitValidation, CaseID: id, Cluster: cluster, Repetition: 1,
			Sample: record.Sample{CaseID: id, Repetition: 1, Cluster: cluster, ExitReason: lux.ExitDone, Passed: &passed,
				IdentityHash: "same-" + id, Metrics: map[string]float64{"agent.total": 100, "toolCalls": calls}}})
	}
	return out
}

// A metric no paired case changed is NoChange, computed from the paired
// values: tokens are equal case by case. toolCalls moves by +3 and −3
// within every cluster, so every cluster's mean is unchanged and the
// interval is [0, 0], yet cases changed: it is not NoChange.
func TestNoChangeComesFromThePairedValues(t *testing.T) {
	pass := []int{1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1}
	units := append(quietUnits(BaselineID, make([]int, 16), 0), quietUnits("v", pass, 3)...)
	cands := []CandidateRef{{ID: BaselineID, Bytes: 10}, {ID: "v", Bytes: 12}}
	ev, err := evaluate(t.Context(), handCampaign(nil, nil), cands, newEvidence(t.TempDir(), units), []string{SplitValidation}, nil)
	require.NoError(t, err)

	tokens := findEffect(ev.Effects, "v", "default", SplitValidation, "agent.total")
	require.NotNil(t, tokens)
	assert.True(t, tokens.NoChange, "no case changed its tokens")
	assert.Empty(t, tokens.Warnings, "nothing to warn about where nothing changed")

	calls := findEffect(ev.Effects, "v", "default", SplitValidation, "toolCalls")
	require.NotNil(t, calls)
	require.NotNil(t, calls.Interval)
	assert.Zero(t, calls.Interval.Lower)
	assert.Zero(t, calls.Interval.Upper)
	assert.False(t, calls.NoChange, "cases changed even though every cluster's mean did not")

	pr := findEffect(ev.Effects, "v", "default", SplitValidation, MetricPassRate)
	require.NotNil(t, pr)
	assert.False(t, pr.NoChange)

	// The Markdown report names the unchanged metrics in one line, not as
	// rows, and says each caveat once with the metrics it concerns.
	r := &Report{Effects: ev.Effects}
	var b bytes.Buffer
	require.NoError(t, r.WriteMarkdown(&b))
	md := b.String()
	assert.NotContains(t, md, "agent tokens effect", md)
	assert.Contains(t, md, "no change in any paired case (no interval row): agent tokens", md)
	assert.Equal(t, 1, strings.Count(md, "few clusters: "), md)
	for _, line := range strings.Split(md, "\n") {
		if strings.Count(line, "degenerate") > 1 {
			t.Errorf("a caveat said twice in one line: %q", line)
		}
	}
	assert.LessOrEqual(t, strings.Count(md, "zero width"), 1, md)
}
