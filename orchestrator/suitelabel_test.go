package orchestrator

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSuiteRecordsLabel(t *testing.T) {
	scen := addScenario(t, writeHello)
	o := newTestOrchestrator(t, Options{Label: "main"})
	res, err := o.RunSuite(context.Background(), []*lux.Case{{ID: "a", Prompt: "p", Driver: driverRef(scen)}})
	require.NoError(t, err)
	s, err := record.ReadSuite(res.Dir)
	require.NoError(t, err)
	assert.Equal(t, "main", s.Manifest.Label)
	got, err := record.ResolveSuite(o.RunsRoot(), "label:main")
	require.NoError(t, err)
	assert.Equal(t, res.Dir, got)
}

func TestGitBranch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "feature/x"}, {"-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	assert.Equal(t, "feature/x", gitBranch(context.Background(), sub))
	assert.Equal(t, "", gitBranch(context.Background(), t.TempDir()), "outside a repository")
}
