package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/labels"
)

// twoChecksCase passes says-hi (the agent writes hello.txt) and fails
// readme (it writes no README.md).
const twoChecksCase = `{
  "prompt": "write hello.txt containing hi\nand a README.md",
  "driver": {"name": "subprocess", "config": {"command": "../agent/agent.sh"}},
  "assertions": [
    {"type": "file-contains", "id": "says-hi", "path": "hello.txt", "text": "hi"},
    {"type": "file-exists", "id": "readme", "path": "README.md"}
  ]
}`

// recordRuns runs each case of p once (as lux run does from p.dir with
// lux.json) and returns the run directories by case id.
func recordRuns(t *testing.T, p *project, reg *lux.Registry) map[string]string {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "lux.json"), []byte(`{"runsRoot": ".lux-runs", "casesRoot": "cases"}`), 0o644))
	t.Chdir(p.dir)
	code, out, errOut := run(t, reg, "run", "-q")
	require.Contains(t, []int{0, 1}, code, "%s\n%s", out, errOut)
	dirs, err := filepath.Glob(filepath.Join(p.runs, "*", "subprocess", "*"))
	require.NoError(t, err)
	runs := map[string]string{}
	for _, d := range dirs {
		rel, _ := filepath.Rel(p.runs, d)
		runs[strings.Split(filepath.ToSlash(rel), "/")[0]] = d
	}
	return runs
}

func TestAnnotateWithFlags(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "two.case.json", twoChecksCase)
	reg := registry(t)
	runDir := recordRuns(t, p, reg)["two"]
	require.NotEmpty(t, runDir)
	dataset := filepath.Join("labels", "two.json")
	require.NoError(t, os.MkdirAll("labels", 0o755))

	code, out, errOut := run(t, reg, "annotate", "-out", dataset, "-label", "fail", "-score", "0.5",
		"-assertion", "says-hi=pass:1", "-assertion", "readme=fail", "-split", "train", "-tag", "docs,smoke",
		"-annotator", "ada", "-feedback", "no README", runDir)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "added in "+dataset)
	d, err := labels.Load(dataset)
	require.NoError(t, err)
	require.Len(t, d.Labels, 1)
	l := d.Labels[0]
	rel, _ := filepath.Rel(p.runs, runDir)
	assert.Equal(t, "../.lux-runs/"+filepath.ToSlash(rel), l.Run, "the run path is relative to the dataset's directory")
	f, half, one := false, 0.5, 1.0
	want := labels.Expected{Passed: &f, Score: &half, Assertions: map[string]labels.AssertionLabel{
		"says-hi": {Passed: true, Score: &one}, "readme": {Passed: false}}}
	if diff := cmp.Diff(want, l.Expected); diff != "" {
		t.Errorf("expected (-want +got):\n%s", diff)
	}
	assert.Equal(t, []string{"train", "docs", "smoke"}, l.Tags)
	assert.Equal(t, "ada", l.Annotator)
	assert.Equal(t, "no README", l.Feedback)
	assert.Equal(t, "two", l.CaseID)
	assert.NotNil(t, l.Evidence, "the evidence fingerprint is kept to check the run later")
	assert.True(t, strings.HasSuffix(l.ID, "-ada"), l.ID)

	// Another annotator's label sits beside it; the same annotator replaces theirs.
	code, out, _ = run(t, reg, "annotate", "-out", dataset, "-label", "pass", "-annotator", "bob", "-json", runDir)
	require.Equal(t, 0, code)
	doc := decodeJSON(t, out, "lux.label/v1")
	assert.Equal(t, false, doc["replaced"])
	code, out, _ = run(t, reg, "annotate", "-out", dataset, "-label", "fail", "-annotator", "ada", runDir)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "replaced")
	d, err = labels.Load(dataset)
	require.NoError(t, err)
	assert.Len(t, d.Labels, 2)

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no dataset", []string{runDir}, "-out DATASET.json is required"},
		{"nothing labelled", []string{"-out", dataset, runDir}, "nothing to label"},
		{"bad verdict", []string{"-out", dataset, "-label", "maybe", runDir}, `-label: "maybe" is neither pass nor fail`},
		{"bad score", []string{"-out", dataset, "-score", "2", runDir}, `-score: "2" is not a score in [0, 1]`},
		{"unknown assertion", []string{"-out", dataset, "-assertion", "tests=pass", runDir}, `the run has no assertion "tests" (its assertions: says-hi, readme)`},
		{"not a run", []string{"-out", dataset, "-label", "pass", p.dir}, "not a run directory"},
		{"relabel another run", []string{"-out", dataset, "-label", "pass", "-id", l.ID, "-annotator", "x", p.writeFakeRun(t, "two")}, "already labels another run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := run(t, reg, append([]string{"annotate"}, tc.args...)...)
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, tc.want)
		})
	}
}

// writeFakeRun copies nothing but a run.json of caseID with a fresh run id.
func (p *project) writeFakeRun(t *testing.T, caseID string) string {
	t.Helper()
	dir := filepath.Join(p.dir, "elsewhere", caseID)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run.json"), []byte(`{"schemaVersion": 1, "runId": "other", "caseId": "`+caseID+`", "exitReason": "done"}`), 0o644))
	return dir
}

// withStdin makes answers the process's standard input for the test.
func withStdin(t *testing.T, answers string) {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	_, err = w.WriteString(answers)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	old := os.Stdin
	os.Stdin = r
	t.Cleanup(func() { os.Stdin = old; r.Close() })
}

func TestAnnotateInteractive(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "two.case.json", twoChecksCase)
	reg := registry(t)
	runDir := recordRuns(t, p, reg)["two"]
	require.NotEmpty(t, runDir)

	// verdict (a wrong answer first), score, says-hi, readme, tags,
	// annotator, feedback.
	withStdin(t, "perhaps\nfail\n\npass:0.9\nfail\ntest\ncy\nhello.txt is right, README missing\n")
	code, out, errOut := run(t, reg, "annotate", "-interactive", "-out", "d.json", runDir)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	for _, want := range []string{
		"prompt:\n  write hello.txt containing hi\n  and a README.md", // the whole prompt
		"verdict:     FAIL",
		"✓ says-hi",
		"write_file", // the trajectory
		"artifacts (1):\n  hello.txt",
		"case verdict, pass or fail (graded fail)? perhaps\n" + `  "perhaps" is neither pass nor fail; try again`, // piped answers are echoed
		"assertion readme: pass or fail, optionally :SCORE (graded fail, score 0.00)?",
		"label two-",
	} {
		assert.Contains(t, out, want)
	}
	d, err := labels.Load("d.json")
	require.NoError(t, err)
	require.Len(t, d.Labels, 1)
	l := d.Labels[0]
	f, s := false, 0.9
	want := labels.Expected{Passed: &f, Assertions: map[string]labels.AssertionLabel{
		"says-hi": {Passed: true, Score: &s}, "readme": {Passed: false}}}
	if diff := cmp.Diff(want, l.Expected); diff != "" {
		t.Errorf("expected (-want +got):\n%s", diff)
	}
	assert.Equal(t, []string{"test"}, l.Tags)
	assert.Equal(t, "cy", l.Annotator)
	assert.True(t, strings.HasSuffix(l.ID, "-cy"), "the id names the annotator given interactively: %s", l.ID)
	assert.Equal(t, "hello.txt is right, README missing", l.Feedback)

	// Flags answer their questions; input that ends early writes nothing.
	withStdin(t, "pass\n")
	code, out, errOut = run(t, reg, "annotate", "-interactive", "-out", "d.json", "-label", "pass", "-annotator", "dee", runDir)
	assert.Equal(t, 2, code, out)
	assert.Contains(t, errOut, "input ended before the answer to")
	assert.NotContains(t, out, "case verdict", "-label answered it")
	d, _ = labels.Load("d.json")
	assert.Len(t, d.Labels, 1)
}
