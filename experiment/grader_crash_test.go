package experiment

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/assertion/rubric"
	"github.com/luxeval/lux/internal/ctxtest"
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
	conc := 2
	if n, err := strconv.Atoi(os.Getenv("LUX_TEST_CONCURRENCY")); err == nil {
		conc = n
	}
	opts := Options{RunsRoot: filepath.Join(dir, "crash-runs"), Concurrency: conc, Progress: func(p Progress) {
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
	log := filepath.Join(dir, "judge-calls.log")
	t.Setenv("LUX_TEST_JUDGE_LOG", log) // the children count their judge calls
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
	sp := got.Manifest.Spent
	assert.Equal(t, 48, sp.JudgeCalls-sp.InterruptedJudgeCalls, "each finished unit's judge call counted once")
	assert.Zero(t, sp.InterruptedJudgeCalls%rubric.Attempts, "a killed unit counts at its reservation")
	// A killed unit made no call or one (the judge answers validly), and
	// counts at its reservation: the calls made lie between the finished
	// units' and the spend.
	made := judgeCallsIn(log)
	assert.GreaterOrEqual(t, made, 48)
	assert.LessOrEqual(t, made, 48+sp.InterruptedJudgeCalls/rubric.Attempts)
	assert.LessOrEqual(t, made, sp.JudgeCalls)
	data, err := os.ReadFile(filepath.Join(ledger, JournalFile))
	require.NoError(t, err)
	assert.Equal(t, 48, strings.Count(string(data), `"kind":"unit"`), "the journal lists each unit once")
	gotEv, err := got.Evaluate(ctx(t))
	require.NoError(t, err)
	refEv, err := ref.Evaluate(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, AgreementLines(refEv.Agreement), AgreementLines(gotEv.Agreement))
}

// countJudgeCall counts a call of the test judge, across processes, as a
// line of the file LUX_TEST_JUDGE_LOG names (when set); the call whose
// line is number LUX_TEST_JUDGE_HANG_AT never answers, so that the test
// can kill its process in the middle of it.
func countJudgeCall(ctx context.Context) error {
	log := os.Getenv("LUX_TEST_JUDGE_LOG")
	if log == "" {
		return nil
	}
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString("call\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if at := os.Getenv("LUX_TEST_JUDGE_HANG_AT"); at != "" && at == strconv.Itoa(judgeCallsIn(log)) {
		if os.Getenv(judgeHangingEnv) != "" {
			// Tell the test, which kills this process now.
			_, _ = os.NewFile(judgeHangingFD, "hanging").WriteString("hanging\n")
		}
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

// judgeHangingEnv, when set in a child, says that its descriptor
// judgeHangingFD is a pipe on which it writes a line as its judge call
// starts to hang (LUX_TEST_JUDGE_HANG_AT), so that the test waits for
// that moment instead of watching the log.
const (
	judgeHangingEnv = "LUX_TEST_JUDGE_HANGING"
	judgeHangingFD  = 3 // the first of exec.Cmd.ExtraFiles
)

// judgeCallsIn is how many calls the log of countJudgeCall counts.
func judgeCallsIn(log string) int {
	data, _ := os.ReadFile(log)
	return strings.Count(string(data), "\n")
}

// Judge calls obey maxJudgeCalls across kills: a unit killed in the
// middle of its judge call reserved its calls in the journal before it
// made any, so the resumed experiment counts them as spent. The judge
// counts every call it answers, in every process; the experiment makes
// no more than the budget, and its spend is what the judge counted, the
// killed units' calls at the most they could make.
func TestGraderJudgeCallsKilledMidCallStayWithinTheBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the experiment in child processes")
	}
	dir := t.TempDir()
	path := writeGraderFixture(t, dir, 1) // 24 units, a judge call each
	const budget = 24
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	raw = []byte(strings.Replace(string(raw), `"repetitions"`, fmt.Sprintf(`"budget": {"maxJudgeCalls": %d}, "repetitions"`, budget), 1))
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	log := filepath.Join(dir, "judge-calls.log")
	exe, err := os.Executable()
	require.NoError(t, err)

	// child runs (or resumes) the experiment with one unit at a time; with
	// hangAt > 0 it is killed in the middle of that judge call.
	ledger := ""
	child := func(hangAt int) {
		t.Helper()
		if ledger == "" {
			if ls, _ := List(filepath.Join(dir, "crash-runs")); len(ls) == 1 {
				ledger = ls[0]
			}
		}
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "LUX_TEST_EXPERIMENT="+dir, "LUX_TEST_LEDGER="+ledger,
			"LUX_TEST_CONCURRENCY=1", "LUX_TEST_JUDGE_LOG="+log, fmt.Sprintf("LUX_TEST_JUDGE_HANG_AT=%d", hangAt))
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		hanging, w, err := os.Pipe()
		require.NoError(t, err)
		defer hanging.Close()
		cmd.ExtraFiles = []*os.File{w}
		cmd.Env = append(cmd.Env, judgeHangingEnv+"=1")
		require.NoError(t, cmd.Start())
		w.Close() // the child's copy is the one left: its exit ends the read below
		if hangAt == 0 {
			_ = cmd.Wait() // the budget stops it: an error exit
			require.NotContains(t, out.String(), "panic", out.String())
			return
		}
		// The child says when judge call hangAt hangs; a child that
		// exits first closes the pipe; the safety net ends a stuck one.
		said := make(chan string, 1)
		go func() {
			line, _ := bufio.NewReader(hanging).ReadString('\n')
			said <- line
		}()
		ctx, cancel := ctxtest.Safety(t)
		defer cancel()
		var line string
		select {
		case line = <-said:
		case <-ctx.Done():
		}
		if line != "hanging\n" {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait() // out is the child's alone until it has exited
			t.Fatalf("the child never made judge call %d: %s", hangAt, out.String())
		}
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait()
	}
	kills := []int{5, 12}
	for _, at := range kills {
		child(at)
	}
	child(0)

	l, err := Open(ledger)
	require.NoError(t, err)
	made := judgeCallsIn(log)
	sp := l.Manifest.Spent
	t.Logf("judge calls made %d, spent %+v, error %q", made, sp, l.Manifest.Error)
	assert.LessOrEqual(t, made, budget, "the judge was called more often than the budget allows")
	assert.Equal(t, StatusFailed, l.Manifest.Status)
	assert.Contains(t, l.Manifest.Error, "maxJudgeCalls")
	// Each killed unit made one call and reserved rubric.Attempts.
	assert.Equal(t, len(kills)*rubric.Attempts, sp.InterruptedJudgeCalls)
	assert.Equal(t, made+len(kills)*(rubric.Attempts-1), sp.JudgeCalls, "the spend is the calls made, a killed unit's at its reservation")
	settled := 0
	for _, u := range l.Units {
		settled += u.JudgeCalls
	}
	assert.Equal(t, made-len(kills), settled, "the finished units' calls are the ones the judge answered them")
	assert.Equal(t, settled+sp.InterruptedJudgeCalls, sp.JudgeCalls)
	rep, err := BuildReport(ctx(t), ledger)
	require.NoError(t, err)
	var md strings.Builder
	require.NoError(t, rep.WriteMarkdown(&md))
	assert.Contains(t, md.String(), fmt.Sprintf("| judge calls | %d (%d of them by units interrupted mid-grading, counted at the most they could make; their tokens and cost are not known) | %d |",
		sp.JudgeCalls, sp.InterruptedJudgeCalls, budget))
}
