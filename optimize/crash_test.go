package optimize

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/luxeval/lux/experiment"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// byCall proposes by call number (known from the remaining budget), so a
// resumed child proposes what an uninterrupted search would.
type byCall struct{ max int }

func (b byCall) Propose(_ context.Context, in *Input) ([]Proposal, error) {
	agents := []string{overfitAgents, fixAgents, "write a.txt nope\n"}
	call := b.max - in.Remaining.ProposalCalls
	return []Proposal{{Rationale: fmt.Sprintf("call %d", call+1), Files: map[string]string{"AGENTS.md": agents[call%len(agents)]}}}, nil
}

const crashCalls = 3

func crashOptions(dir string) Options {
	return Options{RunsRoot: filepath.Join(dir, "runs"), Patience: 5, Budget: Budget{MaxProposalCalls: crashCalls},
		Progress: func(s string) { fmt.Println(s) },
		Units: func(p experiment.Progress) {
			if p.Finished {
				fmt.Printf("unit %s %s\n", p.Candidate, p.CaseID)
			}
		}}
}

// childSearch runs (or, given a ledger, resumes) the search in this
// process, printing its progress; the parent kills it.
func childSearch(dir, ledger string) int {
	exe, err := os.Executable()
	if err != nil {
		return 2
	}
	reg, err := registry()
	if err != nil {
		return 2
	}
	c := campaignOf(dir, exe)
	var res *Result
	if ledger == "" {
		res, err = Search(context.Background(), reg, c, byCall{crashCalls}, crashOptions(dir))
	} else {
		res, err = Resume(context.Background(), reg, ledger, c, byCall{crashCalls}, crashOptions(dir))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("done %s\n", res.Final.Decision.Champion)
	return 0
}

// TestASearchKilledAtRandomMomentsEndsAsAnUninterruptedOne SIGKILLs the
// search in a child process at random moments (mid-proposal, mid-train
// evaluation, mid-promotion), resumes it, again and again, and checks that
// it ends with the lineage and decision of an uninterrupted search, no
// proposal call made twice once journaled and no candidate twice.
func TestASearchKilledAtRandomMomentsEndsAsAnUninterruptedOne(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the search in child processes")
	}
	dir := t.TempDir()
	require.NoError(t, writeProject(dir))
	exe, err := os.Executable()
	require.NoError(t, err)
	ref := t.TempDir()
	require.NoError(t, writeProject(ref))
	want, err := Search(t.Context(), testRegistry(t), campaignOf(ref, exe), byCall{crashCalls}, Options{RunsRoot: filepath.Join(ref, "runs"), Patience: 5, Budget: Budget{MaxProposalCalls: crashCalls}})
	require.NoError(t, err)
	require.Equal(t, "c2", want.Final.Decision.Champion)

	seed := uint64(os.Getpid())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	kills, ledger := 0, ""
	for round := 0; ; round++ {
		require.Less(t, round, 40, "the search never finished")
		if ledger == "" {
			dirs, _ := filepath.Glob(filepath.Join(dir, "runs", LedgerDir, "*"))
			require.LessOrEqual(t, len(dirs), 1)
			if len(dirs) == 1 {
				if es, err := ReadJournal(dirs[0]); err == nil && len(es) > 0 {
					ledger = dirs[0]
				} else {
					require.NoError(t, os.RemoveAll(dirs[0])) // killed before it started
				}
			}
		}
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "LUX_TEST_SEARCH="+dir, "LUX_TEST_LEDGER="+ledger)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		killAfter := 1 + rng.IntN(12)
		seen, done := 0, false
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "done ") {
				done = true
				assert.Equal(t, "done c2", line)
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
		require.NotContains(t, stderr.String(), "panic", stderr.String())
	}
	require.GreaterOrEqual(t, kills, 3)
	t.Logf("killed %d times", kills)

	entries, err := ReadJournal(ledger)
	require.NoError(t, err)
	wantEntries, err := ReadJournal(want.Dir)
	require.NoError(t, err)
	assert.Equal(t, LineageLines(wantEntries), LineageLines(entries))
	calls, cands, evals := map[int]int{}, map[string]int{}, map[string]int{}
	for _, e := range entries {
		switch e.Kind {
		case "proposal":
			calls[e.Call]++
			if e.Candidate != "" {
				cands[e.Candidate]++
			}
		case "evaluation":
			evals[e.Candidate]++
		}
	}
	assert.Equal(t, map[int]int{1: 1, 2: 1, 3: 1}, calls, "each proposal call journaled once")
	for id, n := range cands {
		assert.Equal(t, 1, n, id)
	}
	for id, n := range evals {
		assert.Equal(t, 1, n, "%s evaluated once", id)
	}
	l, err := experiment.Open(filepath.Join(ledger, filepath.FromSlash(entries[len(entries)-1].Ledger)))
	require.NoError(t, err)
	assert.Equal(t, experiment.Promote, l.Manifest.Decision.Outcome)
	assert.Equal(t, "c2", l.Manifest.Decision.Champion)
}
