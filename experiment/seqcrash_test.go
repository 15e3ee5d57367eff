package experiment

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestASequentialExperimentKilledMidCampaignContinuesTheSameEProcess runs
// the sequential campaign in a child process, SIGKILLs it after a random
// number of finished units (mid-round, mid-write, between a round's last
// unit and its journal line), resumes it, again and again, and checks
// that every round's e-values and sequences, the units run and the
// decision are those of an uninterrupted run.
func TestASequentialExperimentKilledMidCampaignContinuesTheSameEProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the experiment in child processes")
	}
	t.Setenv("LUX_TEST_SEQUENTIAL", "1")
	f := newFixture(t, "write a.txt alpha\n")
	for i, word := range []string{"alpha", "alpha", "beta", "beta", "beta", "beta"} {
		f.addCase(t, "validation", "case-"+string(rune('a'+i)), "", "a.txt", word)
	}
	c, err := crashCampaign(f.dir)
	require.NoError(t, err)
	require.NotNil(t, c.Sequential)
	want, err := Run(ctx(t), testRegistry(t), c, Options{RunsRoot: filepath.Join(f.dir, "reference-runs")})
	require.NoError(t, err)
	require.Equal(t, Promote, want.Decision.Outcome)

	seed := uint64(os.Getpid())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 22))
	exe, err := os.Executable()
	require.NoError(t, err)
	ledger := killUntilDone(t, exe, f.dir, rng, 6)

	got, err := Open(ledger)
	require.NoError(t, err)
	ref, err := Open(want.Dir)
	require.NoError(t, err)
	assert.Equal(t, journalRounds(t, want.Dir), journalRounds(t, ledger), "the same e-process states after every round")
	assert.Equal(t, ref.Manifest.Decision.Outcome, got.Manifest.Decision.Outcome)
	assert.Equal(t, ref.Manifest.Decision.Champion, got.Manifest.Decision.Champion)
	assert.Equal(t, ref.Manifest.Decision.Sequential, got.Manifest.Decision.Sequential)
	gates := func(d *Decision) []*SequentialGate {
		var out []*SequentialGate
		for _, g := range d.Gates {
			out = append(out, g.Sequential)
		}
		return out
	}
	assert.Equal(t, gates(ref.Manifest.Decision), gates(got.Manifest.Decision), "the same e-values, sequences and stops")
	ids := func(l *Ledger) []string {
		var out []string
		for _, u := range l.Units {
			out = append(out, u.ID)
		}
		slices.Sort(out)
		return out
	}
	assert.Equal(t, ids(ref), ids(got), "the same units")
	assert.Len(t, slices.Compact(ids(got)), 48, "no unit twice, none beyond the decision")
	_, err = BuildReport(ctx(t), ledger)
	require.NoError(t, err)
}
