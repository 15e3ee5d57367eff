package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lux report -html -labels shows a run's labels beside its grading: a
// label that says the failed case passes, its annotator and feedback
// escaped.
func TestReportHTMLLabels(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "two.case.json", twoChecksCase)
	reg := registry(t)
	runDir := recordRuns(t, p, reg)["two"]
	require.NotEmpty(t, runDir)
	dataset := filepath.Join("labels", "two.json")
	require.NoError(t, os.MkdirAll("labels", 0o755))
	code, out, errOut := run(t, reg, "annotate", "-out", dataset, "-label", "pass", "-assertion", "readme=pass",
		"-annotator", "<b>ada</b>", "-feedback", "<script>alert(1)</script> the README is optional", runDir)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)

	code, out, errOut = run(t, reg, "report", "-html", "page.html", "-labels", dataset, runDir)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	b, err := os.ReadFile("page.html")
	require.NoError(t, err)
	page := string(b)
	assert.Contains(t, page, `<tr class="label-row disagree">`, "the case's label disagrees with the grading")
	assert.Contains(t, page, `status pass disagree`, "readme's label disagrees")
	assert.Contains(t, page, "&lt;b&gt;ada&lt;/b&gt;")
	assert.Contains(t, page, "&lt;script&gt;alert(1)&lt;/script&gt; the README is optional")
	assert.NotContains(t, page, "<script>alert(1)")

	code, _, errOut = run(t, reg, "report", "-labels", dataset, runDir)
	assert.Equal(t, 2, code, "-labels without -html: %s", errOut)
	code, _, errOut = run(t, reg, "report", "-html", "other.html", "-labels", "missing.json", runDir)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "missing.json")
	code, _, errOut = run(t, reg, "view", "-labels", dataset)
	assert.Equal(t, 2, code, "view -labels without -serve: %s", errOut)
}
