package temporal

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/builtin"
	"github.com/luxeval/lux/orchestrator"
)

// Per-run overhead of the Temporal path over the local one, and the
// throughput of two workers with a few slots each, on trivial runs (the
// agent writes one file and ends):
//
//	LUX_TEMPORAL_CLI=$HOME/.cache/lux-temporal/bin/temporal \
//	  go test -run '^$' -bench . -benchtime 20x ./temporal/
//
// Each benchmark is one suite of b.N runs, so ns/op is the time per run.

func benchCases(b *testing.B, n int, agent, gate string) []*lux.Case {
	cases := make([]*lux.Case, n)
	for i := range cases {
		cases[i] = agentCase(fmt.Sprintf("bench-%d", i), "hello", "hello", agent, gate)
	}
	return cases
}

func BenchmarkRunLocal(b *testing.B) {
	dir := b.TempDir()
	agent, gate := writeAgent(b, dir)
	opts := testOptions(filepath.Join(dir, "runs"))
	o := orchestrator.New(builtin.Registry(), opts)
	cases := benchCases(b, b.N, agent, gate)
	b.ResetTimer()
	res, err := o.RunSuite(context.Background(), cases)
	require.NoError(b, err)
	require.Equal(b, b.N, res.Summary.Totals.Passed)
}

// benchTemporal runs b.N trivial runs through Temporal on workers
// in-process workers of slots slots each, with concurrency runs in
// flight.
func benchTemporal(b *testing.B, workers, slots, concurrency int) {
	hostPort, c := devServer(b)
	_ = hostPort
	dir := b.TempDir()
	agent, gate := writeAgent(b, dir)
	root := filepath.Join(dir, "runs")
	queue := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	for i := range workers {
		w := NewWorker(c, queue, slots, &Activities{Registry: builtin.Registry(), Store: SharedDir(root), Identity: fmt.Sprintf("bench-%d", i)})
		require.NoError(b, w.Start())
		b.Cleanup(w.Stop)
	}
	x := &Executor{Client: c, Queue: queue, RunsRoot: root, Params: Params{IdleTimeout: time.Minute}}
	b.Cleanup(x.Close)
	opts := testOptions(root)
	opts.Executor, opts.Concurrency = x, concurrency
	o := orchestrator.New(builtin.Registry(), opts)
	cases := benchCases(b, b.N, agent, gate)
	b.ResetTimer()
	res, err := o.RunSuite(context.Background(), cases)
	require.NoError(b, err)
	require.Equal(b, b.N, res.Summary.Totals.Passed)
}

// BenchmarkRunTemporal is the Temporal path one run at a time: its
// ns/run less BenchmarkRunLocal's is the per-run overhead.
func BenchmarkRunTemporal(b *testing.B) { benchTemporal(b, 1, 1, 1) }

// BenchmarkThroughputTwoWorkers is two workers of 4 slots each, 8 runs
// in flight.
func BenchmarkThroughputTwoWorkers(b *testing.B) { benchTemporal(b, 2, 4, 8) }
