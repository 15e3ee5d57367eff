package orchestrator

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

func TestSourceProvenanceFromGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	gitCmd(t, repo, "init", "-q")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "cases"), 0o755))
	casePath := filepath.Join(repo, "cases", "hello.json")
	require.NoError(t, os.WriteFile(casePath, []byte(`{"prompt":"p"}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("runs/\n"), 0o644))
	gitCmd(t, repo, "add", ".")
	gitCmd(t, repo, "commit", "-q", "-m", "cases")
	head := gitCmd(t, repo, "rev-parse", "HEAD")

	c, err := lux.ReadCase(casePath, (*lux.Case).Validate)
	require.NoError(t, err)
	c.Driver = driverRef(addScenario(t, writeHello))
	o := New(testRegistry(t), Options{RunsRoot: filepath.Join(repo, "runs")})
	res, err := o.Run(context.Background(), c)
	require.NoError(t, err)
	src := res.Metadata.Provenance.Source
	require.NotNil(t, src)
	assert.Equal(t, "cases/hello.json", src.CasePath)
	require.NotNil(t, src.Git)
	assert.Equal(t, head, src.Git.Commit)
	assert.False(t, src.Git.Dirty)
	assert.Equal(t, "hello", res.Metadata.CaseID, "the id comes from the file name")

	// A dirty tree is recorded with a hash of its changes (a new
	// Orchestrator: the state of a repository is read once per Orchestrator).
	require.NoError(t, os.WriteFile(filepath.Join(repo, "notes.txt"), []byte("wip"), 0o644))
	res, err = New(testRegistry(t), Options{RunsRoot: filepath.Join(repo, "runs")}).Run(context.Background(), c)
	require.NoError(t, err)
	g := res.Metadata.Provenance.Source.Git
	assert.True(t, g.Dirty)
	assert.Len(t, g.WorkingTreeHash, 64)

	// An inline case has no source.
	res, err = o.Run(context.Background(), &lux.Case{ID: "inline", Prompt: "p", Driver: c.Driver})
	require.NoError(t, err)
	assert.Nil(t, res.Metadata.Provenance.Source)
}

func TestDefaultAnswerer(t *testing.T) {
	scen := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		a.ready(ctx)
		ans, ok := a.ask(ctx, lux.Interrupt{Kind: lux.Ask, ID: "q", Question: "name?"})
		if ok {
			_ = a.write("name.txt", ans.Text)
			a.done(ctx, nil)
		}
		return nil
	})
	o := newTestOrchestrator(t, Options{
		DefaultDriver:   driverRef(scen, lux.CanAsk),
		DefaultAnswerer: &lux.PluginRef{Name: "table", Config: map[string]any{"answers": map[string]string{"name?": "lux"}}},
	})
	res, err := o.Run(context.Background(), &lux.Case{ID: "d", Prompt: "p",
		Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "name.txt", "text": "lux"}}}})
	require.NoError(t, err)
	assert.Equal(t, record.VerdictPass, res.Verdict())
	assert.Equal(t, "table", res.Metadata.Answerer.Name)
	assert.Nil(t, res.Metadata.Usage.Agent, "no usage reported is unavailable, not zero")
}
