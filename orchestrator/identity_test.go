package orchestrator

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/record"
)

// luxAgent is a lux-jsonl agent script that writes hello.txt.
const luxAgent = `#!/bin/sh
echo hi > hello.txt
echo '{"type":"ready","agentId":"hello-agent","agentVersion":"hello-agent v1.0.0","detail":{"pid":'$$',"cwd":"'"$PWD"'"}}'
echo '{"type":"done"}'
`

func subprocessRegistry(t *testing.T) *lux.Registry {
	t.Helper()
	reg := testRegistry(t)
	require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
	return reg
}

// writeCaseDir writes dir/hello.case.json running command, and the agent
// script at agent (when not empty).
func writeCaseDir(t *testing.T, dir, command, agent string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	if agent != "" {
		require.NoError(t, os.WriteFile(agent, []byte(luxAgent), 0o755))
	}
	path := filepath.Join(dir, "hello.case.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"prompt":"Write hello.txt.",
"driver":{"name":"subprocess","config":{"command":"`+command+`"}},
"assertions":[{"type":"file-has","path":"hello.txt"}]}`), 0o644))
	return path
}

func runFile(t *testing.T, o *Orchestrator, path string) *record.Run {
	t.Helper()
	c, err := lux.ReadCase(path, (*lux.Case).Validate)
	require.NoError(t, err)
	res, err := o.Run(context.Background(), c)
	require.NoError(t, err)
	require.Equal(t, lux.ExitDone, res.Metadata.ExitReason, res.Metadata.Reason)
	return res
}

func compareRuns(t *testing.T, a, b *record.Run) *compare.RunComparison {
	t.Helper()
	c, err := compare.Runs(context.Background(), a.Dir, b.Dir, compare.Options{})
	require.NoError(t, err)
	return c
}

// Copying a directory of cases elsewhere leaves its runs comparable: a
// case's source path is relative, and a command is identified by its
// content, not where it sits.
func TestCopiedCasesStayComparable(t *testing.T) {
	top := t.TempDir()
	o := New(subprocessRegistry(t), Options{RunsRoot: filepath.Join(top, "runs")})
	// One agent outside the cases (an absolute command), one inside them
	// (a relative command, copied along).
	shared := filepath.Join(top, "agent", "agent.sh")
	require.NoError(t, os.MkdirAll(filepath.Dir(shared), 0o755))
	for name, command := range map[string]string{"outside": shared, "inside": "./agent.sh"} {
		t.Run(name, func(t *testing.T) {
			agent := shared
			if command == "./agent.sh" {
				agent = filepath.Join(top, name, "cases", "agent.sh")
			}
			first := writeCaseDir(t, filepath.Join(top, name, "cases"), command, agent)
			second := first
			if command == "./agent.sh" {
				second = writeCaseDir(t, filepath.Join(top, name, "cases2"), command, filepath.Join(top, name, "cases2", "agent.sh"))
			} else {
				second = writeCaseDir(t, filepath.Join(top, name, "cases2"), command, "")
			}
			a, b := runFile(t, o, first), runFile(t, o, second)
			assert.Equal(t, "hello.case.json", a.Metadata.Provenance.Source.CasePath)
			c := compareRuns(t, a, b)
			assert.Empty(t, c.Mismatches, "copied cases are not comparable")
			assert.Equal(t, record.IdentityHash(a.Metadata), record.IdentityHash(b.Metadata))
		})
	}
}

// Editing the agent script changes the identity of its runs: it is the
// agent under test.
func TestEditedAgentChangesTheIdentity(t *testing.T) {
	top := t.TempDir()
	agent := filepath.Join(top, "agent.sh")
	path := writeCaseDir(t, filepath.Join(top, "cases"), agent, agent)
	a := runFile(t, New(subprocessRegistry(t), Options{RunsRoot: filepath.Join(top, "runs")}), path)
	require.NoError(t, os.WriteFile(agent, []byte(luxAgent+"# tuned\n"), 0o755))
	o := New(subprocessRegistry(t), Options{RunsRoot: filepath.Join(top, "runs")})
	b := runFile(t, o, path)

	cmdA, cmdB := a.Metadata.Provenance.Runtime.Commands[0], b.Metadata.Provenance.Runtime.Commands[0]
	assert.Len(t, cmdA.SHA256, 64)
	assert.NotEqual(t, cmdA.SHA256, cmdB.SHA256)
	assert.Empty(t, cmdA.Version, "a lux-jsonl agent is not asked its version")
	c := compareRuns(t, a, b)
	require.Len(t, c.Mismatches, 1)
	assert.Equal(t, compare.FieldRuntime, c.Mismatches[0].Field)

	// Its own report of its version is normalized, the raw string kept.
	assert.Equal(t, "1.0.0", a.Metadata.Driver.AgentVersion)
	assert.Equal(t, "hello-agent v1.0.0", a.Metadata.Driver.AgentVersionRaw)
}

// An agent run as a script by an interpreter ("sh /abs/agent.sh") is
// identified by the script's content too: editing it changes the identity,
// while a second run of the same script is a repetition.
func TestEditedScriptChangesTheIdentity(t *testing.T) {
	top := t.TempDir()
	script := filepath.Join(top, "agent.sh")
	require.NoError(t, os.WriteFile(script, []byte(luxAgent), 0o644)) // not executable: sh runs it
	dir := filepath.Join(top, "cases")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, "hello.case.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"prompt":"Write hello.txt.",
"driver":{"name":"subprocess","config":{"command":"sh","args":["`+script+`"]}},
"assertions":[{"type":"file-has","path":"hello.txt"}]}`), 0o644))

	runs := filepath.Join(top, "runs")
	a := runFile(t, New(subprocessRegistry(t), Options{RunsRoot: runs}), path)
	again := runFile(t, New(subprocessRegistry(t), Options{RunsRoot: runs}), path)
	require.NoError(t, os.WriteFile(script, []byte(luxAgent+"# tuned\n"), 0o644))
	o := New(subprocessRegistry(t), Options{RunsRoot: runs})
	b := runFile(t, o, path)

	sa, sb := a.Metadata.Provenance.Runtime.Scripts, b.Metadata.Provenance.Runtime.Scripts
	require.Len(t, sa, 1)
	require.Len(t, sb, 1)
	assert.Equal(t, script, sa[0].Path)
	assert.Len(t, sa[0].SHA256, 64)
	assert.NotEqual(t, sa[0].SHA256, sb[0].SHA256)
	assert.Empty(t, compareRuns(t, a, again).Mismatches, "a second run of one script is a repetition")
	c := compareRuns(t, a, b)
	require.Len(t, c.Mismatches, 1)
	assert.Equal(t, compare.FieldRuntime, c.Mismatches[0].Field)
}

// A runs root inside the repository holding the cases, not ignored by git,
// does not make the tree dirty: the records of earlier runs are not what
// a later run measures.
func TestRunsRootInsideTheRepositoryKeepsTheSourceClean(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	gitCmd(t, repo, "init", "-q")
	agent := filepath.Join(repo, "agent.sh")
	path := writeCaseDir(t, filepath.Join(repo, "cases"), "../agent.sh", agent)
	gitCmd(t, repo, "add", ".")
	gitCmd(t, repo, "commit", "-q", "-m", "cases")

	runs := filepath.Join(repo, ".lux-runs")
	a := runFile(t, New(subprocessRegistry(t), Options{RunsRoot: runs}), path)
	o := New(subprocessRegistry(t), Options{RunsRoot: runs})
	b := runFile(t, o, path)
	assert.Equal(t, "cases/hello.case.json", b.Metadata.Provenance.Source.CasePath)
	require.NotNil(t, b.Metadata.Provenance.Source.Git)
	assert.False(t, b.Metadata.Provenance.Source.Git.Dirty, "the runs root made the tree dirty")
	assert.Empty(t, compareRuns(t, a, b).Mismatches)

	// Any other change still counts.
	require.NoError(t, os.WriteFile(filepath.Join(repo, "notes.txt"), []byte("wip"), 0o644))
	c := runFile(t, New(subprocessRegistry(t), Options{RunsRoot: runs}), path)
	assert.True(t, c.Metadata.Provenance.Source.Git.Dirty)
}
