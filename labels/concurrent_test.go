package labels_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/luxeval/lux/labels"
)

// helperEnv makes the test binary a process that upserts labels (see
// TestMain).
const helperEnv = "LUX_LABELS_UPSERT_HELPER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(helperEnv); spec != "" {
		var dataset, prefix string
		var n int
		if _, err := fmt.Sscanf(spec, "%s %s %d", &dataset, &prefix, &n); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		for i := range n {
			if _, err := labels.Upsert(dataset, label(prefix, i)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func label(prefix string, i int) labels.Label {
	id := prefix + "-" + strconv.Itoa(i)
	return labels.Label{ID: id, Run: "runs/" + id, CaseID: "c", RunID: id, Tags: []string{},
		Expected: labels.Expected{Passed: ptr(i%2 == 0)}, Source: labels.SourceHuman,
		LabeledAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// checkAll reports every label of writers×each that is missing.
func checkAll(t *testing.T, dataset string, writers, each int) {
	t.Helper()
	d, err := labels.Load(dataset)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Labels) != writers*each {
		t.Errorf("%d labels in the dataset, want %d: concurrent writes were lost", len(d.Labels), writers*each)
	}
	for w := range writers {
		for i := range each {
			if l := d.Find(label(fmt.Sprintf("w%d", w), i).ID); l == nil {
				t.Errorf("label w%d-%d lost", w, i)
			}
		}
	}
}

func TestUpsertConcurrentGoroutines(t *testing.T) {
	dataset := filepath.Join(t.TempDir(), "d.json")
	const writers, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if _, err := labels.Upsert(dataset, label(fmt.Sprintf("w%d", w), i)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkAll(t, dataset, writers, each)
}

func TestUpsertConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dataset := filepath.Join(t.TempDir(), "d.json")
	const writers, each = 4, 10
	cmds := make([]*exec.Cmd, writers)
	for w := range writers {
		cmds[w] = exec.Command(exe)
		cmds[w].Env = append(os.Environ(), fmt.Sprintf("%s=%s w%d %d", helperEnv, dataset, w, each))
		cmds[w].Stderr = os.Stderr
		if err := cmds[w].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for w, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("writer %d: %v", w, err)
		}
	}
	checkAll(t, dataset, writers, each)
}
