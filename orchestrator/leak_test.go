package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/leaktest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openFDs(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	return len(entries)
}

// Runs leave nothing behind: no goroutine, no open file, whatever their
// outcome (done, failed, cancelled, a panicking plugin).
func TestRunsLeakNoGoroutinesOrFiles(t *testing.T) {
	fixtures := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(fixtures, "seed.txt"), []byte("seed"), 0o600))
	asker := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		if !a.ready(ctx) || !a.say(ctx, "hi") {
			return nil
		}
		_, _ = a.info.Stderr.Write([]byte("some stderr\n"))
		if _, ok := a.ask(ctx, lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "Which color?"}); !ok {
			return nil
		}
		if err := a.write("out.txt", "x"); err != nil {
			return err
		}
		a.done(ctx, nil)
		return nil
	})
	cases := []*lux.Case{
		{ID: "asks", Prompt: "p", Fixtures: fixtures, Driver: driverRef(asker, lux.CanAsk),
			Answerer:   &lux.PluginRef{Name: "table", Config: map[string]any{"answers": map[string]string{"Which color?": "blue"}}},
			Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "out.txt", "text": "x"}}}},
		{ID: "no-answerer", Prompt: "p", Driver: driverRef(asker, lux.CanAsk)},
		hostileCase("panics", map[string]any{"panic": "next"}, nil),
		hostileCase("answerer-panics", map[string]any{"ask": true}, map[string]any{"panic": "answer"}),
	}
	o := New(hostileRegistry(t), Options{RunsRoot: filepath.Join(t.TempDir(), "runs"), Concurrency: 3, Repetitions: 2})

	// Warm up (lazily started runtime goroutines, cached provenance).
	_, err := o.RunSuite(context.Background(), cases)
	require.NoError(t, err)
	// The warm-up's own goroutines may still be ending: the count only
	// grows more lenient by them, while a leak grows with every run below.
	goroutines, fds := runtime.NumGoroutine(), openFDs(t)

	for range 5 {
		_, err := o.RunSuite(context.Background(), cases)
		require.NoError(t, err)
		for _, c := range cases {
			_, err := o.Run(context.Background(), c)
			require.NoError(t, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err = o.Run(ctx, cases[0])
		require.Error(t, err)
	}
	assert.LessOrEqual(t, leaktest.Goroutines(goroutines), goroutines, "goroutines left behind")
	assert.LessOrEqual(t, leaktest.Settle(func() int { return openFDs(t) }, fds), fds, "files left open")
}
