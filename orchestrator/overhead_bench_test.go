package orchestrator

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/subprocess"
)

// trivialAgent is a lux-jsonl agent that writes one file and finishes at
// once: about the cheapest run there is, so that what remains is the
// harness.
const trivialAgent = `echo hello > "$LUX_ARTIFACTS_DIR/hello.txt"; printf '{"type":"ready","agentId":"trivial"}\n{"type":"done"}\n'`

// BenchmarkRunOverhead measures what lux adds to each run of a suite of
// N distinct trivial cases (N = b.N) run through the subprocess driver
// with the trivialAgent (/bin/sh), graded by one assertion and recorded,
// at -j 1 and -j 4. It reports:
//
//   - overhead-ms/run: (suite wall time − agent floor) / N, where the
//     agent floor is the wall time of starting the same agent N times at
//     the same concurrency with no harness (os/exec, its stdout read to
//     end of file, reaped), measured right after the suite. It is what a
//     run costs beyond the agent itself.
//   - harness-cpu-ms/run: the CPU time (user + system) of this process
//     alone per run, agents excluded (RUSAGE_SELF): the harness's cost
//     whatever the scheduling.
//   - agent-floor-ms/run: the floor above, per run.
//   - peak-rss-MiB: the peak resident set of this process during the
//     suite (VmHWM, reset before it through /proc/self/clear_refs). It
//     includes the test binary, so it reads above a lux command's.
//   - retained-B/run: what the suite keeps on the heap per run once it is
//     over: the live heap after a garbage collection at the end of the
//     suite, its result still held, minus the live heap after one just
//     before it (runtime/metrics "/gc/heap/live:bytes"), over N. It holds
//     the returned summary (a sample per run, a case outcome per case),
//     the manifest's items and whatever else the suite keeps per finished
//     run; a run's memory that is not collected once its files are written
//     shows here.
//
// ns/op is the suite's wall time per run. On a machine with fewer cores
// than -j the agents queue for the CPU; the overhead then also holds that
// queueing, which the floor has too.
//
// Every directory the benchmark makes is kept until all of it is done
// (the parent's b.TempDir): on ext4 without a journal, allocating an inode
// skips the ones freed in the last seconds to minutes, so removing one
// measurement's records before the next would slow the next one's files.
func BenchmarkRunOverhead(b *testing.B) {
	keep := b.TempDir()
	for _, conc := range []int{1, 4} {
		b.Run(fmt.Sprintf("j%d", conc), func(b *testing.B) {
			reg := testRegistry(b)
			if err := reg.RegisterDriver(subprocess.Plugin()); err != nil {
				b.Fatal(err)
			}
			root, err := os.MkdirTemp(keep, "runs")
			if err != nil {
				b.Fatal(err)
			}
			o := New(reg, Options{RunsRoot: root, Concurrency: conc})
			cases := make([]*lux.Case, b.N)
			for i := range cases {
				cases[i] = &lux.Case{ID: "c" + strconv.Itoa(i), Prompt: "write hello.txt",
					Driver:     &lux.PluginRef{Name: "subprocess", Config: map[string]any{"command": "/bin/sh", "args": []string{"-c", trivialAgent}}},
					Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello\n"}}}}
			}
			live0 := liveHeap()
			resetPeakRSS()
			cpu0 := selfCPU()
			start := time.Now()
			b.ResetTimer()
			res, err := o.RunSuite(context.Background(), cases)
			b.StopTimer()
			wall := time.Since(start)
			cpu := selfCPU() - cpu0
			peak := peakRSS()
			if err != nil {
				b.Fatal(err)
			}
			retained := liveHeap() - live0
			runtime.KeepAlive(res)
			if res.Summary.Totals.Passed != b.N {
				b.Fatalf("%d of %d runs passed", res.Summary.Totals.Passed, b.N)
			}
			floor := agentFloor(b, keep, b.N, conc)
			n := float64(b.N)
			b.ReportMetric(float64(wall-floor)/n/1e6, "overhead-ms/run")
			b.ReportMetric(float64(cpu)/n/1e6, "harness-cpu-ms/run")
			b.ReportMetric(float64(floor)/n/1e6, "agent-floor-ms/run")
			if peak > 0 {
				b.ReportMetric(float64(peak)/(1<<20), "peak-rss-MiB")
			}
			b.ReportMetric(float64(retained)/n, "retained-B/run")
		})
	}
}

// agentFloor starts the trivialAgent n times, conc at a time, each in a
// directory of its own under keep, reads its output to end of file and
// reaps it, and returns the wall time it took.
func agentFloor(b *testing.B, keep string, n, conc int) time.Duration {
	dirs := make([]string, n)
	for i := range dirs {
		d, err := os.MkdirTemp(keep, "floor")
		if err != nil {
			b.Fatal(err)
		}
		dirs[i] = d
	}
	jobs := make(chan string)
	var wg sync.WaitGroup
	start := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for dir := range jobs {
				cmd := exec.Command("/bin/sh", "-c", trivialAgent)
				cmd.Env = []string{"PATH=/usr/bin:/bin", "LUX_ARTIFACTS_DIR=" + dir}
				cmd.Dir = dir
				out, err := cmd.StdoutPipe()
				if err == nil {
					err = cmd.Start()
				}
				if err == nil {
					_, _ = io.Copy(io.Discard, out)
					err = cmd.Wait()
				}
				if err != nil {
					b.Error(err)
				}
			}
		}()
	}
	for _, d := range dirs {
		jobs <- d
	}
	close(jobs)
	wg.Wait()
	return time.Since(start)
}

// liveHeap collects garbage and returns the bytes of heap objects then
// live (runtime/metrics "/gc/heap/live:bytes"). It collects twice: what
// only a sync.Pool's victim cache holds goes at the second.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// resetPeakRSS resets this process's peak resident set (Linux).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is this process's peak resident set in bytes since the last
// reset, or 0 where the system does not say (Linux's VmHWM).
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(data) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(rest)), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
