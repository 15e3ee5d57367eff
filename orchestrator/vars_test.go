package orchestrator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/record"
)

// skillAgent reads the file $SKILL_FILE names into the workspace, and
// fails when it cannot: the agent of a skill under test.
const skillAgent = `#!/bin/sh
echo '{"type":"ready","agentId":"skill-agent"}'
if ! cp "$SKILL_FILE" skill.md 2>/dev/null; then
  echo '{"type":"error","reason":"no such file: '"$SKILL_FILE"'"}'
  exit 0
fi
printf ok > ok.txt
printf '%s' "$LITERAL" > literal.txt
echo '{"type":"done"}'
`

// writeSkillProject writes top/agent/agent.sh, top/skill/SKILL.md and
// top/cases/skill.case.json whose env is env (JSON object text).
func writeSkillProject(t *testing.T, top, env string) string {
	t.Helper()
	for name, body := range map[string]string{"agent/agent.sh": skillAgent, "skill/SKILL.md": "# Skill\nv1\n"} {
		p := filepath.Join(top, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o755))
	}
	path := filepath.Join(top, "cases", "skill.case.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(`{"prompt":"Use the skill.",
"driver":{"name":"subprocess","config":{"command":"../agent/agent.sh","env":`+env+`}},
"assertions":[{"type":"file-has","path":"ok.txt","text":"ok"}]}`), 0o644))
	return path
}

// A path given with ${CASE_DIR} in a driver's env reaches the agent as an
// absolute path, wherever the agent runs; the file is identified by its
// content, so a changed skill file makes the runs measure different
// things, while the config's hash keeps the variable as written.
func TestCaseDirVariableInEnv(t *testing.T) {
	top := t.TempDir()
	path := writeSkillProject(t, top, `{"SKILL_FILE":"${CASE_DIR}/../skill/SKILL.md"}`)
	runs := filepath.Join(top, "runs")
	a := runFile(t, New(subprocessRegistry(t), Options{RunsRoot: runs}), path)
	require.Equal(t, record.VerdictPass, a.Verdict())
	again := runFile(t, New(subprocessRegistry(t), Options{RunsRoot: runs}), path)
	assert.Empty(t, compareRuns(t, a, again).Mismatches, "a second run with the same skill is a repetition")

	sa := a.Metadata.Provenance.Runtime.Scripts
	require.Len(t, sa, 1)
	assert.Equal(t, filepath.Join(top, "skill", "SKILL.md"), sa[0].Path)
	assert.Len(t, sa[0].SHA256, 64)

	require.NoError(t, os.WriteFile(filepath.Join(top, "skill", "SKILL.md"), []byte("# Skill\nv2\n"), 0o644))
	b := runFile(t, New(subprocessRegistry(t), Options{RunsRoot: runs}), path)
	c := compareRuns(t, a, b)
	require.Len(t, c.Mismatches, 1, "a changed skill file is another agent under test")
	assert.Equal(t, compare.FieldRuntime, c.Mismatches[0].Field)

	// The project copied elsewhere runs the same configuration.
	other := t.TempDir()
	path2 := writeSkillProject(t, other, `{"SKILL_FILE":"${CASE_DIR}/../skill/SKILL.md"}`)
	d := runFile(t, New(subprocessRegistry(t), Options{RunsRoot: runs}), path2)
	assert.Equal(t, a.Metadata.Provenance.DriverConfigHash, d.Metadata.Provenance.DriverConfigHash)
	assert.Equal(t, record.IdentityHash(a.Metadata), record.IdentityHash(d.Metadata))
}

// The variables are refused where they cannot mean anything, each problem
// at its field path with the known variables named; a path that starts
// with a variable must exist.
func TestDriverVariableProblems(t *testing.T) {
	top := t.TempDir()
	o := New(subprocessRegistry(t), Options{RunsRoot: filepath.Join(top, "runs")})
	for name, tc := range map[string]struct{ env, want string }{
		"unknown":    {`{"SKILL_FILE":"${CASEDIR}/x"}`, "driver.config.env.SKILL_FILE: unknown variable ${CASEDIR} (did you mean ${CASE_DIR}? known: ${CASE_DIR}, ${PROJECT_DIR}"},
		"no project": {`{"SKILL_FILE":"${PROJECT_DIR}/x"}`, "driver.config.env.SKILL_FILE: uses ${PROJECT_DIR}, but no project directory is set (Options.ProjectDir)"},
		"missing":    {`{"SKILL_FILE":"${CASE_DIR}/../skil/SKILL.md"}`, "/cases/../skil/SKILL.md, which cannot be used: no such file or directory"},
		"unclosed":   {`{"SKILL_FILE":"${CASE_DIR"}`, "driver.config.env.SKILL_FILE: has ${ without a closing }"},
	} {
		t.Run(name, func(t *testing.T) {
			path := writeSkillProject(t, filepath.Join(top, name), tc.env)
			c, err := lux.ReadCase(path, (*lux.Case).Validate)
			require.NoError(t, err)
			err = o.Validate(c)
			require.Error(t, err)
			assert.True(t, errors.Is(err, lux.ErrInvalidCase))
			assert.Contains(t, err.Error(), tc.want)
		})
	}

	t.Run("inline case", func(t *testing.T) {
		c := &lux.Case{Prompt: "p", Driver: &lux.PluginRef{Name: "subprocess", Config: map[string]any{
			"command": "/bin/true", "args": []string{"${CASE_DIR}/x"}}}}
		err := o.Validate(c)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "driver.config.args[0]: uses ${CASE_DIR}, but the case has no file")
	})
	t.Run("escaped and project dir", func(t *testing.T) {
		withProject := New(subprocessRegistry(t), Options{RunsRoot: filepath.Join(top, "runs"), ProjectDir: top})
		path := writeSkillProject(t, filepath.Join(top, "esc"), `{"SKILL_FILE":"${PROJECT_DIR}/esc/skill/SKILL.md","LITERAL":"$${HOME}"}`)
		c, err := lux.ReadCase(path, (*lux.Case).Validate)
		require.NoError(t, err)
		res, err := withProject.Run(context.Background(), c)
		require.NoError(t, err)
		assert.Equal(t, record.VerdictPass, res.Verdict(), res.Metadata.Reason)
		lit, err := os.ReadFile(filepath.Join(res.Dir, record.ArtifactsDir, "literal.txt"))
		require.NoError(t, err)
		assert.Equal(t, "${HOME}", string(lit), "$${ is a literal ${")
	})
}

// The variables a driver expands itself at each run are left for it, and
// named among the known ones.
func TestDriverRunVariablesAreLeftToTheDriver(t *testing.T) {
	reg := testRegistry(t)
	own := subprocess.Plugin()
	own.Name, own.RunVariables = "own-vars", []string{"RUN_DIR"}
	require.NoError(t, reg.RegisterDriver(own))
	o := New(reg, Options{RunsRoot: t.TempDir()})
	ref := func(arg string) *lux.PluginRef {
		return &lux.PluginRef{Name: "own-vars", Config: map[string]any{"command": "/bin/true", "args": []string{arg}}}
	}
	p, err := o.plan(&lux.Case{Prompt: "p", Driver: ref("${RUN_DIR}/out")})
	require.NoError(t, err)
	assert.Equal(t, []string{"${RUN_DIR}/out"}, p.driver.(*subprocess.Config).Args)

	err = o.Validate(&lux.Case{Prompt: "p", Driver: &lux.PluginRef{Name: "own-vars", Config: map[string]any{
		"command": "/bin/true", "env": map[string]string{"OUT": "${ARTIFACTS_DIR}"}}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "driver.config.env.OUT: unknown variable ${ARTIFACTS_DIR} (known: ${CASE_DIR}, ${PROJECT_DIR}, ${RUN_DIR}")
}

// The arguments may be a shell's (sh -c): a ${NAME} there that is no near
// miss of a variable is left for it, while a near miss is refused.
func TestShellVariablesInArgs(t *testing.T) {
	o := New(subprocessRegistry(t), Options{RunsRoot: t.TempDir()})
	c := func(arg string) *lux.Case {
		return &lux.Case{Prompt: "p", Driver: &lux.PluginRef{Name: "subprocess", Config: map[string]any{
			"command": "sh", "args": []string{"-c", arg}}}}
	}
	p, err := o.plan(c(`test -n "${LUX_PROMPT+set}" && echo "${HOME}"`))
	require.NoError(t, err)
	assert.Equal(t, []string{"-c", `test -n "${LUX_PROMPT+set}" && echo "${HOME}"`}, p.driver.(*subprocess.Config).Args)

	err = o.Validate(c(`cat ${CASEDIR}/notes.md`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "driver.config.args[1]: unknown variable ${CASEDIR} (did you mean ${CASE_DIR}?")
}

// A file an experiment binds with the subject root token is the subject
// under test, not the runtime: it is not identified as a script.
func TestSubjectRootFilesAreNotRuntime(t *testing.T) {
	top := t.TempDir()
	path := writeSkillProject(t, top, `{"SKILL_FILE":"{{lux.subjectRoot}}/SKILL.md"}`)
	o := New(subprocessRegistry(t), Options{RunsRoot: filepath.Join(top, "runs"), SubjectRoot: filepath.Join(top, "skill")})
	res := runFile(t, o, path)
	assert.Equal(t, record.VerdictPass, res.Verdict(), res.Metadata.Reason)
	assert.Empty(t, res.Metadata.Provenance.Runtime.Scripts)
}
