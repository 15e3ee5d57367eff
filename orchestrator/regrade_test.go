package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRegrade(t *testing.T) {
	o := newTestOrchestrator(t, Options{})
	c := &lux.Case{ID: "hello", Prompt: "p", Driver: driverRef(addScenario(t, writeHello)),
		Assertions: []lux.AssertionSpec{{Type: "file-has", ID: "greeting", Config: map[string]any{"path": "hello.txt", "text": "Hello"}}}}
	res, err := o.Run(context.Background(), c)
	require.NoError(t, err)
	require.Equal(t, record.VerdictFail, res.Verdict())
	before, err := os.ReadFile(filepath.Join(res.Dir, record.GradingFile))
	require.NoError(t, err)

	// The same case grades the same way.
	g, path, err := o.Regrade(context.Background(), res.Dir, nil)
	require.NoError(t, err)
	assert.Equal(t, record.VerdictFail, record.RunVerdict(res.Metadata, g.Report))
	assert.Equal(t, res.Metadata.Provenance.CaseHash, g.CaseHash)
	assert.Equal(t, res.Metadata.Provenance.EvaluatorConfigHash, g.EvaluatorConfigHash)
	assert.FileExists(t, path)

	// A corrected assertion grades the recorded evidence again.
	fixed := *c
	fixed.Assertions = []lux.AssertionSpec{{Type: "file-has", ID: "greeting", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}
	g2, path2, err := o.Regrade(context.Background(), res.Dir, &fixed)
	require.NoError(t, err)
	assert.Equal(t, record.VerdictPass, record.RunVerdict(res.Metadata, g2.Report))
	assert.NotEqual(t, path, path2)
	assert.NotEqual(t, g.AssertionsHash, g2.AssertionsHash)

	after, err := os.ReadFile(filepath.Join(res.Dir, record.GradingFile))
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "grading.json is never rewritten")
	all, err := record.ReadRegradings(res.Dir)
	require.NoError(t, err)
	require.Len(t, all, 2)
	assert.Equal(t, record.VerdictPass, record.RunVerdict(res.Metadata, all[1].Report))

	// Bad input is named.
	bad := fixed
	bad.Assertions = []lux.AssertionSpec{{Type: "file-has"}, {Type: "nope"}}
	_, _, err = o.Regrade(context.Background(), res.Dir, &bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "assertions[0].path: required")
	assert.Contains(t, err.Error(), `assertions[1].type: unknown plugin: assertion "nope"`)
	_, _, err = o.Regrade(context.Background(), t.TempDir(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not a run directory")
}

func TestRegradeKeepsTheRunOutcome(t *testing.T) {
	o := newTestOrchestrator(t, Options{})
	scen := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		a.ready(ctx)
		_ = a.write("hello.txt", "hello")
		a.emit(ctx, lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitIdleTimeout, Reason: "quiet"}})
		return nil
	})
	res, err := o.Run(context.Background(), &lux.Case{ID: "idle", Prompt: "p", Driver: driverRef(scen),
		Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}})
	require.NoError(t, err)
	g, _, err := o.Regrade(context.Background(), res.Dir, nil)
	require.NoError(t, err)
	assert.Equal(t, record.VerdictFail, record.RunVerdict(res.Metadata, g.Report))
	assert.True(t, g.Report.Assertions[0].Passed)
	assert.Equal(t, lux.ExitIdleTimeout, g.Report.Incomplete.ExitReason)
}

// A sealed run graded again stays sealed, its new grading with it; a
// grading slipped in afterwards is refused.
func TestRegradeReseals(t *testing.T) {
	o := newTestOrchestrator(t, Options{})
	c := &lux.Case{ID: "hello", Prompt: "p", Driver: driverRef(addScenario(t, writeHello)),
		Assertions: []lux.AssertionSpec{{Type: "file-has", ID: "greeting", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}}
	res, err := o.Run(context.Background(), c)
	require.NoError(t, err)
	state, err := record.VerifySeal(res.Dir)
	require.NoError(t, err)
	require.Equal(t, record.SealVerified, state)

	g, path, err := o.Regrade(context.Background(), res.Dir, nil)
	require.NoError(t, err)
	assert.Equal(t, record.SealVerified, g.RecordSeal)
	state, err = record.VerifySeal(res.Dir)
	require.NoError(t, err, "the new grading is sealed with the record")
	assert.Equal(t, record.SealVerified, state)
	all, err := record.ReadRegradings(res.Dir)
	require.NoError(t, err)
	require.Len(t, all, 1)

	// A grading changed afterwards is refused by readers and by Regrade.
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(data, ' '), 0o600))
	_, err = record.ReadRegradings(res.Dir)
	require.ErrorIs(t, err, record.ErrSealBroken)
	_, _, err = o.Regrade(context.Background(), res.Dir, nil)
	require.ErrorIs(t, err, record.ErrSealBroken)
	assert.Contains(t, err.Error(), filepath.Base(path))
}

// Grading a run never changes what Regrade verifies: a file the live
// grading would once have left in the workspace is refused when added
// later, and named.
func TestRegradeRefusesAnAddedWorkspaceFile(t *testing.T) {
	o := newTestOrchestrator(t, Options{})
	c := &lux.Case{ID: "hello", Prompt: "p", Driver: driverRef(addScenario(t, writeHello)),
		Assertions: []lux.AssertionSpec{{Type: "file-has", ID: "greeting", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}}
	res, err := o.Run(context.Background(), c)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(res.Dir, record.ArtifactsDir, "graded.txt"), []byte("x"), 0o600))
	_, _, err = o.Regrade(context.Background(), res.Dir, nil)
	require.ErrorIs(t, err, record.ErrEvidenceChanged)
	assert.Contains(t, err.Error(), "graded.txt")
}
