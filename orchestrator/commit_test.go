package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/record"
)

// A run's directory becomes a run only when its record is complete: until
// then (a harness killed while grading, say) it has no run.json, so no
// reader takes it for a run, finished or not; once finished, the record is
// whole and sealed, and nothing the harness wrote is left behind in it.
func TestRunIsReadOnlyOnceComplete(t *testing.T) {
	var during []string
	probe := &lux.AssertionPlugin{Type: "probe-record", Version: "1", Doc: "records what a reader finds of the run while it is graded",
		Parse: func(json.RawMessage) (lux.Check, error) {
			return assertion.CheckFunc(func(ctx context.Context, run *lux.Run) (lux.Result, error) {
				if _, err := os.Lstat(filepath.Join(run.Dir, record.MetadataFile)); err == nil {
					during = append(during, "run.json is there")
				}
				if _, _, err := record.ReadMetadata(run.Dir); err == nil {
					during = append(during, "read as a run")
				}
				runs, err := record.FindRuns(filepath.Dir(filepath.Dir(filepath.Dir(run.Dir))))
				if err == nil && len(runs) > 0 {
					during = append(during, fmt.Sprintf("found as a run: %v", runs))
				}
				return assertion.Pass("probed", nil), nil
			}), nil
		}}
	reg := testRegistry(t)
	require.NoError(t, reg.RegisterAssertion(probe))
	root := filepath.Join(t.TempDir(), "runs")
	o := New(reg, Options{RunsRoot: root})
	scen := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		if !a.ready(ctx) {
			return nil
		}
		if err := a.write("hello.txt", "hello"); err != nil {
			return err
		}
		a.done(ctx, nil)
		return nil
	})
	res, err := o.Run(context.Background(), &lux.Case{ID: "probe", Prompt: "p", Driver: driverRef(scen),
		Assertions: []lux.AssertionSpec{{Type: "probe-record"}}})
	require.NoError(t, err)
	assert.Empty(t, during, "what a reader found of the run before its record was complete")

	state, err := record.VerifySeal(res.Dir)
	require.NoError(t, err)
	assert.Equal(t, record.SealVerified, state)
	back, err := record.ReadRun(res.Dir)
	require.NoError(t, err)
	require.NotNil(t, back.Metadata.Evidence)
	entries, err := os.ReadDir(res.Dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{record.CaseFile, record.MetadataFile, record.EventsFile, record.GradingFile,
		record.ArtifactsFile, record.ArtifactsDir, record.SealFile}, names)
}
