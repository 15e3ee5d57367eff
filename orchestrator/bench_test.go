package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// procDriver launches the test binary as a trivial agent process (see
// TestMain) and measures the process's wall time, from just before it is
// started until it has been waited for.
type procDriver struct {
	agentNanos *atomic.Int64 `json:"-"`
}

func (d *procDriver) Runtime() lux.Runtime { return lux.Runtime{} }

func (d *procDriver) Start(ctx context.Context, info lux.StartInfo) (lux.Session, error) {
	cmd := agentCommand(info.Workspace)
	cmd.Stderr = info.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &procSession{d: d, cmd: cmd, start: start, workspace: info.Workspace}, nil
}

func agentCommand(workspace string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "LUX_TEST_AGENT=hello", "LUX_ARTIFACTS_DIR="+workspace)
	return cmd
}

type procSession struct {
	workspace string
	d         *procDriver
	cmd       *exec.Cmd
	start     time.Time
	step      int
	waited    bool
	err       error
}

func (s *procSession) wait() error {
	if !s.waited {
		s.waited = true
		s.err = s.cmd.Wait()
		s.d.agentNanos.Add(int64(time.Since(s.start)))
	}
	return s.err
}

func (s *procSession) Next(ctx context.Context) (lux.Event, error) {
	s.step++
	switch s.step {
	case 1:
		return lux.Event{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "hello"}}, nil
	case 2:
		if err := s.wait(); err != nil {
			return lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: err.Error()}}, nil
		}
		return lux.Event{Type: lux.EventDone, Done: &lux.Done{}}, nil
	}
	return lux.Event{}, io.EOF
}

func (s *procSession) Respond(context.Context, lux.Answer) error { return nil }
func (s *procSession) Quiesce(context.Context) error             { _ = s.wait(); return nil }
func (s *procSession) Collect(context.Context) ([]lux.Artifact, error) {
	fi, err := os.Stat(filepath.Join(s.workspace, "hello.txt"))
	if err != nil {
		return nil, err
	}
	return []lux.Artifact{{Path: "hello.txt", Size: fi.Size()}}, nil
}
func (s *procSession) Close() error { return nil }

func benchRegistry(b *testing.B, agentNanos *atomic.Int64) *lux.Registry {
	reg := testRegistry(b)
	err := reg.RegisterDriver(&lux.DriverPlugin{Name: "proc", Doc: "an in-process agent that spins for a set time", Parse: func(json.RawMessage) (lux.DriverConfig, error) {
		return &procDriver{agentNanos: agentNanos}, nil
	}})
	if err != nil {
		b.Fatal(err)
	}
	return reg
}

// BenchmarkSuiteOverhead measures what the harness adds to each run of a
// suite of trivial runs (the agent writes one file and exits), at
// concurrency 1 and 4. ns/op is the suite's wall time per run.
//
//   - inprocess: the agent is an in-process fake with no process at all,
//     so overhead-ms/run is all harness: validation aside (done once per
//     case), the run directory, logs, case.json, run.json twice,
//     artifacts.json, grading.json, lifecycle events, grading one
//     assertion, and the suite manifest and summary.
//   - process: the agent is a real process; overhead-ms/run is the mean
//     run duration (run.json startedAt to endedAt) minus the agent
//     process's own wall time (start to wait) measured by the driver.
//
// At concurrency 4 on two cores a run's duration includes waiting for the
// CPU behind the other runs, so overhead-ms/run grows with concurrency
// while ns/op (wall time per run) falls; harness-cpu-ms/run, the CPU time
// of the harness's own process (user + system, agents excluded) per run,
// is the cost that does not depend on scheduling.
func BenchmarkSuiteOverhead(b *testing.B) {
	for _, kind := range []string{"inprocess", "process"} {
		for _, conc := range []int{1, 4} {
			b.Run(fmt.Sprintf("%s/c%d", kind, conc), func(b *testing.B) {
				var agentNanos atomic.Int64
				var runNanos atomic.Int64
				o := New(benchRegistry(b, &agentNanos), Options{
					RunsRoot: b.TempDir(), Concurrency: conc, Repetitions: b.N,
					Progress: func(u Update) {
						if u.Kind == RunFinished {
							runNanos.Add(int64(u.Duration))
						}
					},
				})
				driver := &lux.PluginRef{Name: "proc"}
				if kind == "inprocess" {
					driver = driverRef(addScenario(b, writeHello))
				}
				c := &lux.Case{ID: "trivial", Prompt: "write hello.txt", Driver: driver,
					Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}}
				cpu0 := selfCPU()
				b.ResetTimer()
				res, err := o.RunSuite(context.Background(), []*lux.Case{c})
				b.StopTimer()
				cpu := selfCPU() - cpu0
				if err != nil {
					b.Fatal(err)
				}
				if res.Summary.Totals.Passed != b.N {
					b.Fatalf("%d of %d runs passed", res.Summary.Totals.Passed, b.N)
				}
				n := float64(b.N)
				b.ReportMetric(float64(runNanos.Load()-agentNanos.Load())/n/1e6, "overhead-ms/run")
				b.ReportMetric(float64(agentNanos.Load())/n/1e6, "agent-ms/run")
				b.ReportMetric(float64(cpu)/n/1e6, "harness-cpu-ms/run")
			})
		}
	}
}

// selfCPU returns the CPU time (user + system) this process has used,
// excluding its children.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// retainedHeap runs a suite of n in-process runs whose agent is chatty
// (each run's trajectory is about 100 KiB) and returns the live heap after
// it, holding on to the result.
func retainedHeap(t testing.TB, n int) (uint64, *record.Suite) {
	scen := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		if !a.ready(ctx) {
			return nil
		}
		line := strings.Repeat("x", 500)
		for range 200 {
			if !a.say(ctx, line) {
				return nil
			}
		}
		return writeHello(ctx, a)
	})
	o := New(testRegistry(t), Options{RunsRoot: t.TempDir(), Concurrency: 2, Repetitions: n})
	res, err := o.RunSuite(context.Background(), []*lux.Case{{ID: "chatty", Prompt: "p", Driver: driverRef(scen),
		Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, res
}

// TestSuiteMemoryDoesNotKeepRuns checks that a suite keeps only a small
// summary of each finished run, never its trajectory: each run here
// produces about 100 KiB of events, and the live heap after the suite may
// grow by at most 16 KiB per run between a short and a long suite.
func TestSuiteMemoryDoesNotKeepRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a few hundred runs")
	}
	small, r1 := retainedHeap(t, 10)
	large, r2 := retainedHeap(t, 60)
	perRun := (float64(large) - float64(small)) / 50
	t.Logf("live heap: %d B after 10 runs, %d B after 60 runs: %.0f B per extra run", small, large, perRun)
	if perRun > 16<<10 {
		t.Errorf("the live heap grows by %.0f B per run; a finished run's events must not be kept", perRun)
	}
	runtime.KeepAlive(r1)
	runtime.KeepAlive(r2)
}
