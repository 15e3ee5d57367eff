package experiment

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// crashCampaign is promoteFixture's campaign over the project in dir,
// built without a testing.T (the child process has none).
func crashCampaign(dir string) (*Campaign, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	c := &Campaign{
		ID: "instructions", Dir: dir,
		Subject:     Subject{Root: "subject", Mutable: []string{"AGENTS.md"}},
		Profiles:    map[string]Profile{"default": agentProfileOf(exe)},
		Splits:      Splits{Validation: &Selector{Patterns: []string{"cases/validation"}}},
		Repetitions: Repetitions{Promotion: 2},
		Variants: []Variant{
			{ID: "variant-x", Files: map[string]string{"AGENTS.md": "write a.txt alpha beta\n"}},
			{ID: "variant-y", Files: map[string]string{"AGENTS.md": "fail\n"}},
		},
	}
	c.Objectives.Constraints = []Constraint{{Metric: MetricPassRate, RelativeTo: BaselineID, Min: zero(), Confidence: &Confidence{}}}
	if os.Getenv("LUX_TEST_SEQUENTIAL") == "1" {
		sequentialize(c)
	}
	return c, nil
}

// childExperiment runs (or, given a ledger, resumes) the crash campaign in
// this process, printing a line per finished unit; the parent kills it.
func childExperiment(dir, ledger string) int {
	c, err := crashCampaign(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	reg := lux.NewRegistry()
	if err := errors.Join(reg.RegisterDriver(subprocess.Plugin()), assertion.Register(reg)); err != nil {
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

// TestAnExperimentKilledAtRandomMomentsEndsAsAnUninterruptedOne runs the
// experiment in a child process, SIGKILLs it after a random number of
// finished units (so mid-unit, mid-write or between a unit file and its
// journal line), resumes it, again and again, and checks that it ends with
// the decision and the units of an uninterrupted run, none recorded twice.
func TestAnExperimentKilledAtRandomMomentsEndsAsAnUninterruptedOne(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the experiment in child processes")
	}
	f := newFixture(t, "write a.txt alpha\n")
	for i, word := range []string{"alpha", "alpha", "beta", "beta", "beta", "beta"} {
		f.addCase(t, "validation", "case-"+string(rune('a'+i)), "", "a.txt", word)
	}
	c, err := crashCampaign(f.dir)
	require.NoError(t, err)
	want, err := Run(ctx(t), testRegistry(t), c, Options{RunsRoot: filepath.Join(f.dir, "reference-runs")})
	require.NoError(t, err)
	require.Equal(t, Promote, want.Decision.Outcome)

	seed := uint64(os.Getpid())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	exe, err := os.Executable()
	require.NoError(t, err)
	ledger := killUntilDone(t, exe, f.dir, rng, 4)

	got, err := Open(ledger)
	require.NoError(t, err)
	ref, err := Open(want.Dir)
	require.NoError(t, err)
	assert.Equal(t, StatusPassed, got.Manifest.Status)
	assert.Equal(t, ref.Manifest.Decision.Outcome, got.Manifest.Decision.Outcome)
	assert.Equal(t, ref.Manifest.Decision.Champion, got.Manifest.Decision.Champion)
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
	assert.Len(t, slices.Compact(ids(got)), 36, "no unit twice")
	data, err := os.ReadFile(filepath.Join(ledger, JournalFile))
	require.NoError(t, err)
	assert.Equal(t, 36, strings.Count(string(data), `"kind":"unit"`), "the journal lists each unit once")
	files, _ := os.ReadDir(filepath.Join(ledger, UnitsDir))
	assert.Len(t, files, 36)
	_, err = BuildReport(ctx(t), ledger)
	require.NoError(t, err)
}

// killUntilDone runs the experiment of dir in a child test binary again and
// again, killing it with SIGKILL after 1 to maxGap lines of its progress
// (at most 8 times), until a child finishes it; it returns the ledger the
// children shared, after checking the child was killed at least 3 times.
func killUntilDone(t *testing.T, exe, dir string, rng *rand.Rand, maxGap int) string {
	t.Helper()
	kills := 0
	ledger := ""
	for round := 0; ; round++ {
		require.Less(t, round, 40, "the experiment never finished")
		if ledger == "" {
			ledgers, err := List(filepath.Join(dir, "crash-runs"))
			require.NoError(t, err)
			require.LessOrEqual(t, len(ledgers), 1)
			if len(ledgers) == 1 {
				if _, err := os.Stat(filepath.Join(ledgers[0], ManifestFile)); err == nil {
					ledger = ledgers[0]
				} else {
					// Killed before the manifest existed: nothing ran yet.
					require.NoError(t, os.RemoveAll(ledgers[0]))
				}
			}
		}
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "LUX_TEST_EXPERIMENT="+dir, "LUX_TEST_LEDGER="+ledger)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		killAfter := 1 + rng.IntN(maxGap)
		seen, done := 0, false
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "done ") {
				done = true
				assert.Equal(t, "done passed", line)
				continue
			}
			if seen++; seen == killAfter && kills < 8 {
				require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
				kills++
				break
			}
		}
		_ = cmd.Wait()
		if done {
			break
		}
		require.NotContains(t, stderr.String(), "panic", "the child failed: %s", stderr.String())
	}
	require.GreaterOrEqual(t, kills, 3, "the child was killed several times")
	t.Logf("killed %d times", kills)
	return ledger
}
