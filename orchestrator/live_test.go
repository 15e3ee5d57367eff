package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// Every run of a suite finds its scratch directory, workspace, driver
// directory and grading's scratch directory empty,
// whatever the runs before it left there (in them, and beside them in the
// directory that holds them), and nothing is left under .live once the
// suite has ended.
func TestSuiteRunsStartClean(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	scen := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		if !a.ready(ctx) {
			return nil
		}
		for _, dir := range []string{a.info.RunDir, a.info.Workspace, a.info.TempDir} {
			entries, err := os.ReadDir(dir)
			if err != nil {
				return err
			}
			for _, e := range entries {
				name := filepath.Join(filepath.Base(dir), e.Name())
				if dir == a.info.RunDir && e.IsDir() && slices.Contains(sandbox.PrivateDirs(), e.Name()) {
					// The sandbox's HOME and TMPDIR are kept, emptied.
					inside, err := os.ReadDir(filepath.Join(dir, e.Name()))
					if err != nil {
						return err
					}
					if len(inside) == 0 {
						continue
					}
					name = filepath.Join(name, inside[0].Name())
				}
				mu.Lock()
				seen = append(seen, name)
				mu.Unlock()
			}
		}
		// A file in the HOME the sandbox gives an agent.
		home := filepath.Join(a.info.RunDir, sandbox.PrivateDirs()[0])
		if err := os.MkdirAll(home, 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(home, ".secret"), []byte("x"), 0o600); err != nil {
			return err
		}
		// Leave things behind: in the scratch directory, a file and a
		// read-only directory with a file in it; beside it, a file.
		leftovers := filepath.Join(a.info.RunDir, "left", "deep")
		if err := os.MkdirAll(leftovers, 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(leftovers, "f"), []byte("x"), 0o600); err != nil {
			return err
		}
		if err := os.Chmod(leftovers, 0o500); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(a.info.RunDir, "note"), []byte("x"), 0o600); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(a.info.TempDir, "prompt"), []byte("x"), 0o600); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(filepath.Dir(a.info.RunDir), "beside"), []byte("x"), 0o600); err != nil {
			return err
		}
		if err := a.write("hello.txt", "hello"); err != nil {
			return err
		}
		a.done(ctx, nil)
		return nil
	})
	// The grading's scratch directory: an assertion that finds it empty
	// (and there) passes, and leaves something in it.
	scratchClean := &lux.AssertionPlugin{Type: "scratch-clean", Version: "1", Doc: "passes when the grading's scratch directory is empty",
		Parse: func(json.RawMessage) (lux.Check, error) {
			return assertion.CheckFunc(func(ctx context.Context, run *lux.Run) (lux.Result, error) {
				if run.Scratch == "" {
					return assertion.Fail("no scratch directory", nil), nil
				}
				entries, err := os.ReadDir(run.Scratch)
				if err != nil || len(entries) > 0 {
					return assertion.Fail(fmt.Sprintf("scratch: %v, %v", entries, err), nil), nil
				}
				return assertion.Pass("empty", nil), os.WriteFile(filepath.Join(run.Scratch, "left"), []byte("x"), 0o600)
			}), nil
		}}
	root := t.TempDir()
	for _, conc := range []int{1, 2} {
		t.Run(fmt.Sprintf("j%d", conc), func(t *testing.T) {
			seen = nil
			reg := testRegistry(t)
			require.NoError(t, reg.RegisterAssertion(scratchClean))
			o := New(reg, Options{RunsRoot: root, Concurrency: conc, Repetitions: 5})
			res, err := o.RunSuite(context.Background(), []*lux.Case{{ID: "leaver", Prompt: "p", Driver: driverRef(scen),
				Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}}, {Type: "scratch-clean"}}}})
			require.NoError(t, err)
			assert.Equal(t, 5, res.Summary.Totals.Passed)
			assert.Empty(t, seen, "what earlier runs left, seen by a later run")
			entries, err := os.ReadDir(filepath.Join(root, record.LiveDir))
			require.NoError(t, err)
			assert.Empty(t, entries, "left under .live after the suite")
		})
	}
}
