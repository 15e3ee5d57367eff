package experiment

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// childGrader runs (or, given a ledger, resumes) the grader campaign of
// the fixture in dir in this process, printing a line per finished unit;
// the parent kills it (see killUntilDone).
func childGrader(dir, ledger string) int {
	c, err := Load(filepath.Join(dir, graderCampaignFile))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	reg, err := graderRegistry(routeFactory)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	opts := Options{RunsRoot: filepath.Join(dir, "crash-runs"), Concurrency: 2, Progress: func(p Progress) {
		if p.Finished {
			fmt.Printf("unit %d\n", p.Done)
		}
	}}
	var res *Result
	if ledger == "" {
		res, err = Run(context.Background(), reg, c, opts)
	} else {
		res, err = Resume(context.Background(), reg, ledger, c, opts)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("done %s\n", res.Manifest.Status)
	return 0
}

// A grader experiment killed with SIGKILL at random moments and resumed,
// again and again, ends with the decision, gates, agreement and units of
// an uninterrupted one, no grading recorded twice and no judge call
// counted twice.
func TestAGraderExperimentKilledAtRandomMomentsEndsAsAnUninterruptedOne(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the experiment in child processes")
	}
	dir := t.TempDir()
	path := writeGraderFixture(t, dir, 2)
	c, err := Load(path)
	require.NoError(t, err)
	reg, err := graderRegistry(routeFactory)
	require.NoError(t, err)
	want, err := Run(ctx(t), reg, c, Options{RunsRoot: filepath.Join(dir, "reference-runs")})
	require.NoError(t, err)
	require.Equal(t, Promote, want.Decision.Outcome)

	seed := uint64(os.Getpid())
	t.Logf("seed %d", seed)
	exe, err := os.Executable()
	require.NoError(t, err)
	ledger := killUntilDone(t, exe, dir, rand.New(rand.NewPCG(seed, 11)), 6)

	got, err := Open(ledger)
	require.NoError(t, err)
	ref, err := Open(want.Dir)
	require.NoError(t, err)
	assert.Equal(t, StatusPassed, got.Manifest.Status)
	assert.Equal(t, "strict", got.Manifest.Decision.Champion)
	assert.Equal(t, ref.Manifest.Decision.Ranking, got.Manifest.Decision.Ranking)
	gates := func(d *Decision) []string {
		var out []string
		for _, g := range d.Gates {
			out = append(out, g.Text())
		}
		return out
	}
	assert.Equal(t, gates(ref.Manifest.Decision), gates(got.Manifest.Decision))
	ids := func(l *Ledger) []string {
		var out []string
		for _, u := range l.Units {
			out = append(out, u.ID)
		}
		slices.Sort(out)
		return out
	}
	assert.Equal(t, ids(ref), ids(got), "the same units")
	assert.Len(t, slices.Compact(ids(got)), 48, "no unit twice")
	assert.Equal(t, 48, got.Manifest.Spent.JudgeCalls, "each unit's judge call counted once")
	data, err := os.ReadFile(filepath.Join(ledger, JournalFile))
	require.NoError(t, err)
	assert.Equal(t, 48, strings.Count(string(data), `"kind":"unit"`), "the journal lists each unit once")
	gotEv, err := got.Evaluate(ctx(t))
	require.NoError(t, err)
	refEv, err := ref.Evaluate(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, AgreementLines(refEv.Agreement), AgreementLines(gotEv.Agreement))
}
