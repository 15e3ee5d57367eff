package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/labels"
	"github.com/luxeval/lux/record"
)

// Three labels of two runs: ada agrees with the grading of "two" (case
// fail, says-hi pass, readme fail), bob does not (case pass, readme pass),
// and hello's label agrees (case pass, says-hi pass). Case: TP 1 (hello),
// FN 1 (bob), TN 1 (ada), agreement 2/3. says-hi: TP 2. readme: FN 1
// (bob), TN 1 (ada).
func TestGradeLabels(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "two.case.json", twoChecksCase)
	p.writeCase(t, "hello.case.json", helloCase)
	reg := registry(t)
	runs := recordRuns(t, p, reg)
	two, hello := runs["two"], runs["hello"]
	require.NotEmpty(t, two)
	require.NotEmpty(t, hello)
	for _, args := range [][]string{
		{"-annotator", "ada", "-label", "fail", "-assertion", "says-hi=pass", "-assertion", "readme=fail", two},
		{"-annotator", "bob", "-label", "pass", "-assertion", "readme=pass", two},
		{"-label", "pass", "-score", "1", "-assertion", "says-hi=pass:1", hello},
	} {
		code, out, errOut := run(t, reg, append([]string{"annotate", "-out", "d.json"}, args...)...)
		require.Equal(t, 0, code, "%s\n%s", out, errOut)
	}

	code, out, errOut := run(t, reg, "grade", "-labels", "d.json")
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "labels: d.json: 3 labels of 2 runs, compared with the runs regraded with the current assertions")
	row := func(subject, counts, agree string) {
		t.Helper()
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(subject) + ` +` + counts + ` +` + regexp.QuoteMeta(agree))
		assert.Regexp(t, re, out)
	}
	//      subject    n    TP   FP   FN   TN  abst
	row("case", `3 +1 +0 +1 +1 +0`, "66.7%")
	row("readme", `2 +0 +0 +1 +1 +0`, "50.0%")
	row("says-hi", `2 +2 +0 +0 +0 +0`, "100.0%")
	assert.Contains(t, out, "percentile-bootstrap over labels, 2000 resamples")
	assert.Contains(t, out, "annotators: no alpha among the people who labelled the same runs: too few independent units: 1 pairable units",
		"ada and bob labelled one run: too few for their agreement")
	for _, dir := range []string{two, hello} {
		gs, err := record.ReadRegradings(dir)
		require.NoError(t, err)
		assert.Len(t, gs, 1, "each labelled run is regraded once, however many labels it has")
	}

	// -case regrades the labelled runs of its case with changed assertions:
	// a lenient readme check now passes what ada failed (FP) and what bob
	// passed (TP).
	lenient := writeCase(t, filepath.Join(p.dir, "tuned"), "two.case.json",
		strings.Replace(twoChecksCase, `"path": "README.md"`, `"path": "hello.txt"`, 1))
	code, out, errOut = run(t, reg, "grade", "-labels", "d.json", "-case", lenient)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	row("readme", `2 +1 +1 +0 +0 +0`, "50.0%")
	row("says-hi", `2 +2 +0 +0 +0 +0`, "100.0%")

	// -recorded reads grading.json and grades nothing; -json has the same numbers.
	code, out, _ = run(t, reg, "grade", "-labels", "d.json", "-recorded", "-json")
	require.Equal(t, 0, code, out)
	doc := decodeJSON(t, out, "lux.grade-labels/v1")
	assert.Equal(t, "recorded", doc["grading"])
	c := doc["agreement"].(map[string]any)["case"].(map[string]any)
	assert.Equal(t, map[string]any{"tp": 1.0, "fp": 0.0, "fn": 1.0, "tn": 1.0}, map[string]any{"tp": c["tp"], "fp": c["fp"], "fn": c["fn"], "tn": c["tn"]})
	assert.InDelta(t, 2.0/3, c["agreement"], 1e-12)
	score := c["score"].(map[string]any)
	assert.Equal(t, 1.0, score["n"])
	assert.Equal(t, 0.0, score["mae"], "hello's labelled score 1 is its graded score")
	gs, _ := record.ReadRegradings(two)
	assert.Len(t, gs, 2, "-recorded regrades nothing (one grading each from the two regrading reports above)")

	// RUN_DIRs narrow the labels; a run without a label is an error.
	code, out, _ = run(t, reg, "grade", "-labels", "d.json", "-recorded", hello)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "1 labels of 1 runs")
	code, _, errOut = run(t, reg, "grade", "-labels", "d.json", "-recorded", p.dir)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "no label of d.json is for the run")

	// A run whose evidence is not what was labelled is skipped, by name.
	d, err := labels.Load("d.json")
	require.NoError(t, err)
	for i := range d.Labels {
		if d.Labels[i].CaseID == "hello" {
			d.Labels[i].Evidence.EventsBytes++
		}
	}
	require.NoError(t, labels.Save("d.json", d))
	code, out, _ = run(t, reg, "grade", "-labels", "d.json", "-recorded")
	require.Equal(t, 0, code, out)
	assert.Regexp(t, `skipped hello-\S+: the run's evidence fingerprint differs from the one labelled`, out)
	assert.Contains(t, out, "2 labels of 1 runs")

	// A broken dataset is refused with its field paths.
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "bad.json"), []byte(`{"schemaVersion": 1, "labels": [{"id": "x"}], "extra": 1}`), 0o644))
	code, _, errOut = run(t, reg, "grade", "-labels", "bad.json")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "extra: unknown field")
	assert.Contains(t, errOut, "labels[0].run: required")
}
