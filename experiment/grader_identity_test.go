package experiment

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A rubric whose own config names its judge's command (here in the
// candidates' rubric files) runs that judge, not grader.judge: its CLI is
// part of the experiment's identity, and a resume with another version of
// it is refused. The same judge resumes.
func TestGraderExperimentRefusesToResumeWithAnotherRubricJudge(t *testing.T) {
	dir := t.TempDir()
	path := writeGraderFixture(t, dir, 1)
	judge := filepath.Join(dir, "bin", "own-judge")
	version := func(v string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(judge), 0o755))
		require.NoError(t, os.WriteFile(judge, []byte("#!/bin/sh\necho '"+v+" (Claude Code)'\n"), 0o755))
	}
	version("3.0.1")
	rubric := func(criteria string) string {
		b, err := json.Marshal(map[string]any{"criteria": criteria, "command": judge})
		require.NoError(t, err)
		return string(b)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rubrics", "quality.json"), []byte(rubric("MEDIUM: pass a good or partial result.")), 0o644))
	var raw map[string]any
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &raw))
	raw["subject"] = map[string]any{"root": "rubrics", "mutable": []string{"quality.json"}}
	raw["grader"].(map[string]any)["rubrics"] = []any{map[string]any{"assertion": "quality", "file": "quality.json"}}
	raw["variants"] = []any{
		map[string]any{"id": "lenient", "files": map[string]any{"quality.json": rubric("LENIENT: pass any run.")}},
		map[string]any{"id": "strict", "files": map[string]any{"quality.json": rubric("STRICT: pass only a good result.")}},
	}
	raw["budget"] = map[string]any{"maxJudgeCalls": 4}
	data, err = json.Marshal(raw)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))

	c, err := Load(path)
	require.NoError(t, err)
	reg, err := graderRegistry(routeFactory)
	require.NoError(t, err)
	res, err := Run(ctx(t), reg, c, Options{RunsRoot: filepath.Join(dir, "runs")})
	require.Error(t, err, "the budget stops it after a few units")
	require.Contains(t, err.Error(), "maxJudgeCalls")
	judges := []struct {
		Assertion string
		Command   struct{ Version string }
	}{{"quality", struct{ Version string }{"3.0.1"}}}
	require.Len(t, judges, 1, "the rubric's own judge, beside grader.judge's")
	assert.Equal(t, "quality", judges[0].Assertion)
	assert.Equal(t, "3.0.1", judges[0].Command.Version)

	version("3.0.2")
	_, err = Resume(ctx(t), reg, res.Dir, c, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "profile judge: a rubric's own judge changed")
	assert.True(t, strings.Contains(err.Error(), "3.0.1") && strings.Contains(err.Error(), "3.0.2"), err.Error())

	version("3.0.1")
	_, err = Resume(ctx(t), reg, res.Dir, c, Options{})
	require.Error(t, err, "the same judge resumes, and the budget stops it again")
	assert.Contains(t, err.Error(), "maxJudgeCalls")
	assert.NotContains(t, err.Error(), "cannot resume")
}
