package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// writeGatedCases writes n cases under dir whose agent waits at gate.
func writeGatedCases(t *testing.T, dir, prefix string, n int, agent, gate string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for i := range n {
		c := agentCase(fmt.Sprintf("%s-%d", prefix, i), "gate", "hello", agent, gate)
		b, err := json.Marshal(c)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.case.json", prefix, i)), b, 0o644))
	}
}

// started returns the pids of the agents that reached gate.
func started(gate string) []int {
	entries, _ := os.ReadDir(gate)
	var pids []int
	for _, e := range entries {
		if name, ok := strings.CutPrefix(e.Name(), "started."); ok {
			pid, _ := strconv.Atoi(name[strings.LastIndex(name, ".")+1:])
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitStarted waits until n agents reached gate, failing if client ends
// first.
func waitStarted(t *testing.T, gate string, n int, client *proc) {
	t.Helper()
	for len(started(gate)) < n {
		select {
		case <-client.exited:
			t.Fatalf("the client ended before %d agents started: %v\n%s", n, client.err, client.out.String())
		case <-waitABit():
		}
	}
}

// suiteRuns returns the runs under root recorded for the suite sid, by
// their directory relative to the suite's.
func suiteRuns(t *testing.T, root, sid string) []string {
	t.Helper()
	runs, err := record.FindRuns(root)
	require.NoError(t, err)
	var out []string
	for _, r := range runs {
		meta, _, err := record.ReadMetadata(r)
		require.NoError(t, err)
		if meta.SuiteID == sid {
			rel, err := filepath.Rel(filepath.Join(root, record.SuitesDir, sid), r)
			require.NoError(t, err)
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// TestDistributedSuite runs suites of real subprocess agents on two
// worker processes through a real Temporal dev server: one worker is
// killed mid-run and the suite still completes with every run recorded
// once, comparable with a local run of the same suite; then a cancelled
// workflow stops every agent.
func TestDistributedSuite(t *testing.T) {
	hostPort, c := devServer(t)
	dir := t.TempDir()
	bin := buildLux(t, dir)
	agent, gate := writeAgent(t, dir)
	root := filepath.Join(dir, "runs") // the shared directory
	cases := filepath.Join(dir, "cases")
	writeGatedCases(t, cases, "kill", 4, agent, gate)
	worker := func(name string) *proc {
		wd := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(wd, 0o755))
		return start(t, bin, wd, "serving queue", "worker", "-temporal", hostPort, "-queue", "e2e", "-runs-root", root, "-slots", "2")
	}
	w1, w2 := worker("w1"), worker("w2")
	executor := fmt.Sprintf("temporal://%s/e2e?heartbeat=3s", hostPort)

	t.Run("a killed worker's runs complete on the other, each recorded once", func(t *testing.T) {
		client := start(t, bin, dir, "", "run", "-q", "-runs-root", root, "-j", "4", "-sandbox", "none",
			"-executor", executor, "-label", "distributed", cases)
		waitStarted(t, gate, 4, client) // two runs on each worker: both are busy
		require.NoError(t, w1.cmd.Process.Kill())
		<-w1.exited
		require.NoError(t, os.WriteFile(filepath.Join(gate, "release"), nil, 0o644))
		require.Equal(t, 0, client.wait(), client.out.String())
		assert.Len(t, started(gate), 6, "the killed worker's two runs started again on the other")
		assert.Contains(t, w2.out.String(), ": pass (done) kill-", "the worker prints each run it ends")

		s, err := record.ReadSuite(mustResolve(t, root, "label:distributed"))
		require.NoError(t, err)
		var dirs []string
		for _, it := range s.Manifest.Items {
			assert.Equal(t, record.VerdictPass, it.Verdict(), "%s", it.CaseID)
			dirs = append(dirs, it.RunDir)
		}
		assert.ElementsMatch(t, dirs, suiteRuns(t, root, s.Manifest.SuiteID), "every run recorded exactly once")
		// The killed worker's partial directories are kept under the
		// runs retried, each as attempt 1 (cause lost): none is left
		// beside them.
		assert.Empty(t, partialRuns(t, root), "no run directory without run.json")
		lost := 0
		for _, d := range dirs {
			meta, _, err := record.ReadMetadata(filepath.Join(s.Dir, filepath.FromSlash(d)))
			require.NoError(t, err)
			if len(meta.Attempts) > 0 && meta.Attempts[0].Cause == "lost" {
				lost++
				assert.Equal(t, "attempts/1", meta.Attempts[0].Dir)
				assert.DirExists(t, filepath.Join(s.Dir, filepath.FromSlash(d), "attempts", "1"))
			}
		}
		assert.Equal(t, 2, lost, "the killed worker's two runs each list their lost attempt")

		out, code := runLux(t, bin, dir, "view", "-runs-root", root, "label:distributed")
		require.Equal(t, 0, code, out)
		assert.Contains(t, out, "kill-3")
		out, code = runLux(t, bin, dir, "run", "-q", "-runs-root", root, "-sandbox", "none", "-label", "local", cases)
		require.Equal(t, 0, code, out)
		out, code = runLux(t, bin, dir, "compare", "-runs-root", root, "label:local", "label:distributed")
		require.Equal(t, 0, code, out)
		assert.NotContains(t, out, "not comparable")
	})

	t.Run("an interrupted client's suite resumes on the workers", func(t *testing.T) {
		gate3 := filepath.Join(dir, "gate3")
		require.NoError(t, os.MkdirAll(gate3, 0o755))
		cases3 := filepath.Join(dir, "cases3")
		writeGatedCases(t, cases3, "resume", 2, agent, gate3)
		client := start(t, bin, dir, "", "run", "-q", "-runs-root", root, "-j", "2", "-sandbox", "none",
			"-executor", executor, "-label", "resumed", cases3)
		waitStarted(t, gate3, 2, client)
		require.NoError(t, client.cmd.Process.Signal(os.Interrupt)) // Ctrl-C: its runs are cancelled, and recorded
		assert.Equal(t, 130, client.wait(), client.out.String())
		for _, pid := range started(gate3) {
			assert.False(t, alive(pid), "agent %d survived the interruption", pid)
		}
		require.NoError(t, os.WriteFile(filepath.Join(gate3, "release"), nil, 0o644))
		out, code := runLux(t, bin, dir, "run", "-q", "-resume", "label:resumed", "-runs-root", root, "-sandbox", "none", "-executor", executor)
		require.Equal(t, 0, code, out)
		s, err := record.ReadSuite(mustResolve(t, root, "label:resumed"))
		require.NoError(t, err)
		for _, it := range s.Manifest.Items {
			assert.Equal(t, record.VerdictPass, it.Verdict(), "%s ran again", it.CaseID)
		}
		assert.Len(t, started(gate3), 4, "each cancelled run ran again once")
	})

	t.Run("each profile's runs go to its queue's worker", func(t *testing.T) {
		wb := start(t, bin, filepath.Join(dir, "w1"), "serving queue", "worker", "-temporal", hostPort, "-queue", "e2e-b", "-runs-root", root)
		cfg := filepath.Join(dir, "route", "lux.json")
		require.NoError(t, os.MkdirAll(filepath.Dir(cfg), 0o755))
		require.NoError(t, os.WriteFile(cfg, []byte(`{"profiles": {"a": {}, "b": {"queue": "e2e-b"}}}`), 0o644))
		cases4 := filepath.Join(dir, "cases4")
		require.NoError(t, os.MkdirAll(cases4, 0o755))
		for i := range 2 {
			b, err := json.Marshal(agentCase(fmt.Sprintf("route-%d", i), "hello", "hello", agent, gate))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(cases4, fmt.Sprintf("route-%d.case.json", i)), b, 0o644))
		}
		for _, profile := range []string{"a", "b"} {
			out, code := runLux(t, bin, dir, "run", "-q", "-config", cfg, "-profile", profile, "-runs-root", root, "-j", "2", "-sandbox", "none",
				"-executor", executor, "-label", "route-"+profile, cases4)
			require.Equal(t, 0, code, out)
		}
		ranOn := func(profile string) (queueA, queueB int) {
			s, err := record.ReadSuite(mustResolve(t, root, "label:route-"+profile))
			require.NoError(t, err)
			require.Len(t, s.Manifest.Items, 2)
			// The client said its suite ended: the workflow completes
			// now, not after its idle hour.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var res RunsResult
			require.NoError(t, c.GetWorkflow(ctx, "lux/suite/"+s.Manifest.SuiteID, "").Get(ctx, &res), "the suite's workflow completed")
			assert.Equal(t, 2, res.Runs)
			for _, it := range s.Manifest.Items {
				meta, _, err := record.ReadMetadata(filepath.Join(s.Dir, filepath.FromSlash(it.RunDir)))
				require.NoError(t, err)
				if strings.Contains(w1.out.String()+w2.out.String(), " "+meta.RunID+"\n") {
					queueA++
				}
				if strings.Contains(wb.out.String(), " "+meta.RunID+"\n") {
					queueB++
				}
			}
			return queueA, queueB
		}
		a, b := ranOn("a")
		assert.Equal(t, []int{2, 0}, []int{a, b}, "profile a names no queue: its runs go to the executor's, e2e")
		a, b = ranOn("b")
		assert.Equal(t, []int{0, 2}, []int{a, b}, "profile b's runs go to its queue, e2e-b\n%s", wb.out.String())
	})

	t.Run("cancelling the workflow stops every agent and records each run", func(t *testing.T) {
		gate2 := filepath.Join(dir, "gate2")
		require.NoError(t, os.MkdirAll(gate2, 0o755))
		cases2 := filepath.Join(dir, "cases2")
		writeGatedCases(t, cases2, "cancel", 4, agent, gate2)
		w3 := worker("w3")
		_ = w3
		client := start(t, bin, dir, "", "run", "-q", "-runs-root", root, "-j", "4", "-sandbox", "none",
			"-executor", executor, "-label", "cancelled", cases2)
		waitStarted(t, gate2, 4, client)
		s, err := record.ReadSuite(mustResolve(t, root, "label:cancelled"))
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		id := "lux/suite/" + s.Manifest.SuiteID
		require.NoError(t, c.CancelWorkflow(ctx, id, ""))
		client.wait()
		for _, pid := range started(gate2) {
			assert.False(t, alive(pid), "agent %d survived the cancellation", pid)
		}
		s, err = record.ReadSuite(s.Dir)
		require.NoError(t, err)
		for _, it := range s.Manifest.Items {
			assert.Equal(t, lux.ExitCancelled, it.ExitReason, "%s", it.CaseID)
			assert.Equal(t, record.VerdictCancelled, it.Verdict(), "%s", it.CaseID)
		}
		assert.Len(t, suiteRuns(t, root, s.Manifest.SuiteID), 4, "each cancelled run is recorded")
		d, err := c.DescribeWorkflowExecution(ctx, id, "")
		require.NoError(t, err)
		assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, d.GetWorkflowExecutionInfo().GetStatus())
	})
}

// partialRuns returns the run directories under root (named for a time,
// outside .suites, .live and the runs' attempts/) without run.json.
func partialRuns(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case !d.IsDir():
			return nil
		case strings.HasPrefix(d.Name(), ".") || d.Name() == orchestrator.AttemptsDir:
			return filepath.SkipDir
		case record.IsStampName(d.Name()):
			if _, err := os.Stat(filepath.Join(p, record.MetadataFile)); err != nil {
				out = append(out, p)
			}
			return filepath.SkipDir
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

func mustResolve(t *testing.T, root, ref string) string {
	t.Helper()
	dir, err := record.ResolveSuite(root, ref)
	require.NoError(t, err)
	return dir
}

// runLux runs bin to its end and returns its output and exit status.
func runLux(t *testing.T, bin, dir string, args ...string) (string, int) {
	t.Helper()
	p := start(t, bin, dir, "", args...)
	code := p.wait()
	return p.out.String(), code
}
