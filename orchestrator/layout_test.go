package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Case ids that are long, odd, or that slug alike still get runs of their
// own: separate directories, their own ids in run.json, their own
// identities, and FindRuns finds them all.
func TestOddCaseIDsGetRunsOfTheirOwn(t *testing.T) {
	root := filepath.Join(t.TempDir(), "runs")
	o := New(testRegistry(t), Options{RunsRoot: root})
	scen := addScenario(t, writeHello)
	long := strings.Repeat("very-long-case-name-", 20) // 400 bytes in one path segment
	ids := []string{
		"a b", "a-b", "a.b", // slug alike
		long, long + "x", // too long for one directory name, and alike once cut
		strings.Repeat("é", 200),
		"2025-01-02T03-04-05-678Z", // looks like a run directory
		"api/2025-01-02T03-04-05-678Z/login",
		"日本語/ケース",
	}
	dirs := map[string]string{}
	identities := map[string]string{}
	for _, id := range ids {
		res, err := o.Run(context.Background(), &lux.Case{ID: id, Prompt: "p", Driver: driverRef(scen)})
		require.NoError(t, err, "case id %q", id)
		assert.Equal(t, id, res.Metadata.CaseID)
		for other, dir := range dirs {
			assert.NotEqual(t, dir, res.Dir, "%q and %q share a run directory", id, other)
		}
		dirs[id] = res.Dir
		identities[id] = record.IdentityHash(res.Metadata)
		for _, seg := range strings.Split(res.Dir, string(filepath.Separator)) {
			assert.LessOrEqual(t, len(seg), 255, "path segment of %q", id)
		}
		got, err := record.ReadRun(res.Dir)
		require.NoError(t, err)
		assert.Equal(t, id, got.Metadata.CaseID)
	}
	seen := map[string]string{}
	for id, h := range identities {
		if other, dup := seen[h]; dup {
			t.Errorf("%q and %q have the same identity", id, other)
		}
		seen[h] = id
	}
	found, err := record.FindRuns(root)
	require.NoError(t, err)
	var want []string
	for _, d := range dirs {
		want = append(want, d)
	}
	assert.ElementsMatch(t, want, found, "FindRuns finds every run")
}

// A runs root that cannot be written is an error naming the directory.
func TestUnwritableRunsRoot(t *testing.T) {
	// A regular file where a directory should be: unwritable even for root.
	parent := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(parent, nil, 0o600))
	root := filepath.Join(parent, "runs")
	o := New(testRegistry(t), Options{RunsRoot: root})
	c := &lux.Case{ID: "x", Prompt: "p", Driver: driverRef(addScenario(t, writeHello))}

	res, err := o.Run(context.Background(), c)
	require.Error(t, err)
	assert.Nil(t, res)
	assert.Contains(t, err.Error(), root)
	assert.Contains(t, err.Error(), "not a directory")

	sres, err := o.RunSuite(context.Background(), []*lux.Case{c})
	require.Error(t, err)
	assert.Nil(t, sres)
	assert.Contains(t, err.Error(), root)

	diags := o.Preflight(context.Background(), []*lux.Case{c})
	assert.Equal(t, StatusFail, diags[0].Status)
	assert.Contains(t, diags[0].Message, root)
}

// Suites running at once under one runs root keep to their own
// directories and their own runs.
func TestConcurrentSuitesShareARunsRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "runs")
	scen := addScenario(t, writeHello)
	c := &lux.Case{ID: "shared", Prompt: "p", Driver: driverRef(scen),
		Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": "hello.txt", "text": "hello"}}}}
	const suites = 4
	results := make([]*record.Suite, suites)
	errs := make([]error, suites)
	var wg sync.WaitGroup
	for i := range suites {
		wg.Go(func() {
			o := New(testRegistry(t), Options{RunsRoot: root, Concurrency: 3, Repetitions: 3})
			results[i], errs[i] = o.RunSuite(context.Background(), []*lux.Case{c})
		})
	}
	wg.Wait()
	runDirs := map[string]bool{}
	suiteDirs := map[string]bool{}
	for i, res := range results {
		require.NoError(t, errs[i])
		assert.False(t, suiteDirs[res.Dir], "suite directory %s used twice", res.Dir)
		suiteDirs[res.Dir] = true
		assert.Equal(t, 3, res.Summary.Totals.Passed)
		s, err := record.ReadSuite(res.Dir)
		require.NoError(t, err)
		for j := range s.Manifest.Items {
			d := s.RunDir(j)
			assert.False(t, runDirs[d], "run directory %s used twice", d)
			runDirs[d] = true
			m, _, err := record.ReadMetadata(d)
			require.NoError(t, err)
			assert.Equal(t, s.Manifest.SuiteID, m.SuiteID)
		}
	}
	found, err := record.FindRuns(root)
	require.NoError(t, err)
	assert.Len(t, found, suites*3)
}

// Fixtures hold only directories and regular files; anything else is
// refused, naming the file, by Validate and before any run starts: the
// fixtures are walked as staging walks them. A fixtures directory given
// through a symlink is accepted by Validate and by the run alike.
func TestFixturesThatAreNotPlainFiles(t *testing.T) {
	o := newTestOrchestrator(t, Options{})
	scen := addScenario(t, writeHello)
	refused := func(t *testing.T, dir, path, want string) {
		t.Helper()
		c := &lux.Case{ID: "fx", Prompt: "p", Fixtures: dir, Driver: driverRef(scen)}
		err := o.Validate(c)
		require.ErrorIs(t, err, lux.ErrInvalidCase)
		assert.Contains(t, err.Error(), "fixtures: "+filepath.Join(dir, path)+" "+want)
		res, err := o.Run(context.Background(), c)
		require.ErrorIs(t, err, lux.ErrInvalidCase)
		assert.Nil(t, res, "nothing ran")
	}

	t.Run("symlink inside", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o600))
		require.NoError(t, os.Symlink("../a.txt", filepath.Join(dir, "sub", "link")))
		refused(t, dir, filepath.Join("sub", "link"), "is a symlink")
	})
	t.Run("fifo inside", func(t *testing.T) {
		dir := t.TempDir()
		if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o600); err != nil {
			t.Skip(err)
		}
		refused(t, dir, "pipe", "is not a regular file")
	})
	t.Run("directory through a symlink", func(t *testing.T) {
		real := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(real, "a.txt"), []byte("a"), 0o600))
		link := filepath.Join(t.TempDir(), "fixtures")
		require.NoError(t, os.Symlink(real, link))
		c := &lux.Case{ID: "fx", Prompt: "p", Fixtures: link, Driver: driverRef(scen)}
		require.NoError(t, o.Validate(c))
		res, err := o.Run(context.Background(), c)
		require.NoError(t, err)
		assert.Equal(t, lux.ExitDone, res.Metadata.ExitReason, res.Metadata.Reason)
		assert.NotEmpty(t, res.Metadata.Provenance.FixturesHash)
		assert.ElementsMatch(t, []string{"a.txt", "hello.txt"}, artifactPaths(res.Artifacts))
	})
}

func artifactPaths(arts []lux.Artifact) []string {
	var out []string
	for _, a := range arts {
		out = append(out, a.Path)
	}
	return out
}
