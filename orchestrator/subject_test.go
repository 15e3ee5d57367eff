package orchestrator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// subjectTree makes a subject root with fixtures/a.txt holding text, and
// registers writeHello under "<root>/agent" so that a driver config can
// name its scenario through the token.
func subjectTree(t *testing.T, text string) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "fixtures"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "fixtures", "a.txt"), []byte(text), 0o644))
	scenariosMu.Lock()
	scenarios[root+"/agent"] = writeHello
	scenariosMu.Unlock()
	return root
}

func subjectCase() *lux.Case {
	return &lux.Case{
		ID: "bound", Prompt: "write hello",
		Driver:   &lux.PluginRef{Name: "fake", Config: map[string]any{"scenario": SubjectRootToken + "/agent"}},
		Fixtures: SubjectRootToken + "/fixtures",
		Assertions: []lux.AssertionSpec{
			{Type: "file-has", Config: map[string]any{"path": "a.txt", "text": "from the subject"}},
			{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}},
		},
	}
}

func TestSubjectRootIsBoundInDriverConfigFixturesAndAssertions(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "runs")
	var metas []*record.Metadata
	for _, text := range []string{"from the subject", "from the subject"} {
		root := subjectTree(t, text)
		o := newTestOrchestrator(t, Options{RunsRoot: runs, SubjectRoot: root,
			Experiment: ExperimentInfo{ID: "exp", CandidateID: "baseline", SubjectHash: "h"}})
		res, err := o.Run(context.Background(), subjectCase())
		require.NoError(t, err)
		require.Equal(t, record.VerdictPass, res.Verdict(), "fixtures come from the subject root and the agent was found through it")
		metas = append(metas, res.Metadata)

		rec, err := record.ReadRun(res.Dir, record.ReadOptions{})
		require.NoError(t, err)
		assert.Equal(t, SubjectRootToken+"/fixtures", rec.Case.Fixtures, "case.json keeps the authored case")
		assert.Equal(t, "exp", rec.Metadata.Provenance.ExperimentID)
		assert.Equal(t, "baseline", rec.Metadata.Provenance.CandidateID)
	}
	a, b := metas[0].Provenance, metas[1].Provenance
	assert.Equal(t, a.CaseHash, b.CaseHash)
	assert.Equal(t, a.AssertionsHash, b.AssertionsHash)
	assert.Equal(t, a.DriverConfigHash, b.DriverConfigHash, "the config hash is of the authored, unbound config")
	assert.Equal(t, a.FixturesHash, b.FixturesHash, "equal subject contents give equal fixtures")
	assert.Equal(t, record.IdentityHash(metas[0]), record.IdentityHash(metas[1]))
}

func TestSubjectRootChangesTheFixturesHashWithTheSubject(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "runs")
	var hashes []string
	for _, text := range []string{"from the subject", "something else"} {
		o := newTestOrchestrator(t, Options{RunsRoot: runs, SubjectRoot: subjectTree(t, text)})
		res, err := o.Run(context.Background(), subjectCase())
		require.NoError(t, err)
		hashes = append(hashes, res.Metadata.Provenance.FixturesHash)
	}
	assert.NotEqual(t, hashes[0], hashes[1])
}

func TestSubjectRootTokenWithoutARootIsAnError(t *testing.T) {
	o := newTestOrchestrator(t, Options{DefaultDriver: &lux.PluginRef{Name: "fake",
		Config: map[string]any{"scenario": SubjectRootToken + "/agent"}}})
	c := subjectCase()
	c.Driver = nil
	err := o.Validate(c)
	require.Error(t, err)
	assert.True(t, errors.Is(err, lux.ErrInvalidCase))
	for _, want := range []string{
		"driver.config: uses {{lux.subjectRoot}} but no subject root is configured",
		"fixtures: uses {{lux.subjectRoot}}",
		"Options.SubjectRoot",
	} {
		assert.Contains(t, err.Error(), want)
	}
	assert.False(t, strings.Contains(err.Error(), "assertions["), "assertions without the token are fine: %v", err)
}
