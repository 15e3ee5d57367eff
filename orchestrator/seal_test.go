package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// An agent that finds its own record while it runs (walking up to the runs
// root) and appends to its events or plants a grading does not get them
// sealed: the seal holds the events as the harness logged them, and no
// gradings, so every reader refuses the record.
func TestAnAgentCannotForgeItsOwnRecordIntoTheSeal(t *testing.T) {
	root := filepath.Join(t.TempDir(), "runs")
	o := newTestOrchestrator(t, Options{RunsRoot: root})
	for name, forge := range map[string]func(dir string) error{
		"events": func(dir string) error {
			f, err := os.OpenFile(filepath.Join(dir, record.EventsFile), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteString(`{"type":"progress","kind":"agent-message","data":{"text":"forged"}}` + "\n")
			return err
		},
		"case": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, record.CaseFile), []byte(`{"id":"forged","prompt":"p"}`), 0o600)
		},
		"gradings": func(dir string) error {
			if err := os.MkdirAll(filepath.Join(dir, record.GradingsDir), 0o700); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, record.GradingsDir, "2030-01-01T00-00-00-000Z.json"), []byte(`{"report":{"casePassed":true}}`), 0o600)
		},
	} {
		t.Run(name, func(t *testing.T) {
			scen := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
				if !a.ready(ctx) {
					return nil
				}
				runs, err := filepath.Glob(filepath.Join(root, "forger-"+name, "*", "*"))
				if err != nil || len(runs) != 1 {
					return fmt.Errorf("its run directory not found: %v %v", runs, err)
				}
				if err := forge(runs[0]); err != nil {
					return err
				}
				a.done(ctx, nil)
				return nil
			})
			res, err := o.Run(context.Background(), &lux.Case{ID: "forger-" + name, Prompt: "p", Driver: driverRef(scen)})
			require.NoError(t, err)
			_, err = record.VerifySeal(res.Dir)
			require.ErrorIs(t, err, record.ErrSealBroken)
			switch name {
			case "case":
				_, err = record.ReadCase(res.Dir)
				require.ErrorIs(t, err, record.ErrSealBroken)
				assert.Contains(t, err.Error(), record.CaseFile)
			case "events":
				_, err = record.ReadRun(res.Dir, record.ReadOptions{Events: true})
				require.ErrorIs(t, err, record.ErrSealBroken)
				assert.Contains(t, err.Error(), record.EventsFile)
			default:
				_, err = record.ReadRegradings(res.Dir)
				require.ErrorIs(t, err, record.ErrSealBroken)
				assert.Contains(t, err.Error(), "was added")
			}
		})
	}
}
